#!/bin/sh
# One process of a job split into pretend nodes of <ranks-per-node> ranks:
# sets CCS_NODE_ID=pretend-<CCS_RANK / ranks-per-node>, then runs the rest.
# Usage (under ccsrun): pretend_nodes.sh <ranks-per-node> <program> [args...]
per_node=$1
shift
CCS_NODE_ID="pretend-$((CCS_RANK / per_node))" exec "$@"
