# Sourced by the comparison scripts: figures kept over several rounds, so a
# comparison on a noisy machine reports medians and shows the spread.
#   record <what> <who> <value>   keeps one round's figure
#   median <what> <who>           the median of the rounds
#   all <what> <who> [format]     every round's figure, "a / b / c" (printf
#                                 format, default %.3g)
# Uses $figures, a file the caller creates and removes.
record() { echo "$1 $2 $3" >> "$figures"; }
median() { awk -v w="$1" -v p="$2" '$1==w && $2==p{print $3}' "$figures" | sort -g |
           awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
all() { awk -v w="$1" -v p="$2" -v f="${3:-%.3g}" '$1==w && $2==p{printf "%s" f, n++ ? " / " : "", $3} END{print ""}' "$figures"; }
# One round taken in turns: the reference, this, the reference again.
#   turn_ratio <reference> <this> <reference again> <higher|lower is better>
# prints "<ratio> <reference mean>" (above 1: this is faster), or nothing
# when the two reference figures differ by more than 15 %: the VM changed
# phase during the round.
turn_ratio() { awk -v a="$1" -v c="$2" -v b="$3" -v h="$4" \
                 'BEGIN{d = a > b ? a / b : b / a; if (d > 1.15) exit; r = (a + b) / 2; print (h == "higher" ? c / r : r / c), r}'; }
# The median of the numbers on stdin, one a line.
median_of() { sort -g | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
