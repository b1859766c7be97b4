// C entry point: how this process reaches a peer (ccs_peer_query).
#include "api_guard.hpp"

#include <cstring>

using namespace ccs;

namespace {

void set_transport(ccs_peer_attr_t &attr, const std::string &name) {
    std::memset(attr.transport, 0, sizeof attr.transport);
    name.copy(attr.transport, sizeof attr.transport - 1);
}

}  // namespace

extern "C" ccs_status_t ccs_peer_query(int peer, ccs_peer_attr_t *attr) {
    return guarded([&]() -> ccs_status_t {
        ccs_status_t st = CCS_OK;
        runtime *rt = running(st, "ccs_peer_query");
        if (!rt) return st;
        if (!attr) return fail(CCS_ERR_INVALID_ARG, "ccs_peer_query: attr is NULL");
        if (attr->struct_size < sizeof(ccs_peer_attr_t))
            return fail(CCS_ERR_INVALID_ARG, "ccs_peer_query: attr->struct_size " + std::to_string(attr->struct_size) +
                                                 " is smaller than this library's ccs_peer_attr_t (" +
                                                 std::to_string(sizeof(ccs_peer_attr_t)) + ")");
        if (peer < 0 || peer >= rt->size())
            return fail(CCS_ERR_INVALID_RANK, "ccs_peer_query: rank " + std::to_string(peer) + " is outside [0, " +
                                                  std::to_string(rt->size()) + ")");
        const transport *t = rt->route(peer);
        if (!t) {  // this process: everything is a load or a store
            attr->flags = CCS_PEER_SAME_NODE | CCS_PEER_AM_ORDERED | CCS_PEER_PUT_NATIVE | CCS_PEER_GET_NATIVE |
                          CCS_PEER_MAPS_MEMORY | (rt->rma().network_atomics_reach(peer) ? CCS_PEER_NETWORK_ATOMICS : 0);
            set_transport(*attr, "self");
            attr->am_max_packet = SIZE_MAX;
            return CCS_OK;
        }
        const uint64_t caps = t->attr().caps;
        uint32_t flags = 0;
        if (rt->same_node(peer)) flags |= CCS_PEER_SAME_NODE;
        if (t->ordered()) flags |= CCS_PEER_AM_ORDERED;
        if (rt->rma().native(peer, true)) flags |= CCS_PEER_PUT_NATIVE;
        if (rt->rma().native(peer, false)) flags |= CCS_PEER_GET_NATIVE;
        if ((caps & CCS_PLUGIN_CAP_MAP_SHARED) && (flags & CCS_PEER_SAME_NODE)) flags |= CCS_PEER_MAPS_MEMORY;
        if (rt->am().peer_has_failed(peer)) flags |= CCS_PEER_FAILED;
        if (rt->am().sends_beside(peer)) flags |= CCS_PEER_AM_CONCURRENT;
        if (rt->am().parks_payloads(peer) && rt->am().receives_in_place(peer)) flags |= CCS_PEER_AM_LARGE_WITH_HEADER;
        const uint32_t native = CCS_PEER_PUT_NATIVE | CCS_PEER_GET_NATIVE;
        if (rt->rma().rma_beside(peer) && (flags & native) == native) flags |= CCS_PEER_RMA_CONCURRENT;
        if (rt->rma().network_atomics_reach(peer)) flags |= CCS_PEER_NETWORK_ATOMICS;
        if ((flags & CCS_PEER_NETWORK_ATOMICS) && rt->rma().network_atomics_beside())
            flags |= CCS_PEER_NETWORK_ATOMICS_CONCURRENT;
        attr->flags = flags;
        set_transport(*attr, t->name());
        attr->am_max_packet = t->attr().am_max_packet;
        return CCS_OK;
    });
}
