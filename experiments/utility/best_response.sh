#!/bin/bash
# A best responder against each fixed agent on a full board (30 duplicate deals, seats swapped,
# the fixed agents' time budgets on the CPU clock). Usage: bash experiments/utility/best_response.sh classic2|dithmarschen4
# Resumable: the same command continues; a finished row is skipped by its folder's games.
set -euo pipefail
case "${1:-}" in
  classic2) V=classic; P=2; MCCFR="mccfr:policy=experiments/results/mccfr-zwicker/classic2-coarse-probe/policy-min3000,fallback=greedy" ;;
  dithmarschen4) V=dithmarschen; P=4; MCCFR="mccfr:policy=experiments/results/mccfr-zwicker/dithmarschen4-coarse-probe/policy-min500,fallback=greedy" ;;
  *) echo "usage: bash experiments/utility/best_response.sh classic2|dithmarschen4" >&2; exit 2 ;;
esac
row() {  # board, responder, agent, folder suffix
  zwick best-response --variant $V --players $P --responder "$2" --agent "$3" --deals 30 --seed 0 --clock cpu \
    --quiet --out "experiments/results/best-response/$1-$4"
}
row "$1" "br-ismcts:vs=random,iters=300" random random
row "$1" "br-ismcts:vs=greedy,iters=300" greedy greedy
row "$1" "br-ismcts:vs=greedy,iters=300" "net:model=after" net
row "$1" "br-ismcts:vs=greedy,iters=300" "$MCCFR" mccfr
row "$1" "br-ismcts:vs=greedy,iters=300" "ismcts:time=0.1" ismcts
row "$1" "br-ismcts:vs=greedy,iters=300" "expert:time=0.1" expert
row "$1" "br-ismcts:vs=greedy,iters=300" "resolve:time=0.1" resolve
