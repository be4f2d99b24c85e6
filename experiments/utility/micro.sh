#!/bin/bash
# The searches' objective on a micro Zwicker game: nash_conv of ISMCTS, the expert and cfr-search
# under each utility=, and hybrid policies (the search in one stage, exact CFR+ in the other).
# Usage: bash experiments/utility/micro.sh micro1s2|micro2   (resumable: the same command continues)
set -euo pipefail
M2="zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
M12="zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)"
I="ismcts:iters=100,utility=clip;ismcts:iters=100,utility=margin;ismcts:iters=100,utility=bound"
E="expert:time=0,iters=1000,utility=clip;expert:time=0,iters=1000,utility=margin"
C="cfr-search:time=0,iters=100,utility=clip;cfr-search:time=0,iters=100,utility=margin"
H="ismcts:iters=100,utility=clip@stage=1;ismcts:iters=100,utility=clip@stage=2;ismcts:iters=100,utility=margin@stage=1;ismcts:iters=100,utility=margin@stage=2"
H2="expert:time=0,iters=1000,utility=clip@stage=1;expert:time=0,iters=1000,utility=clip@stage=2;cfr-search:time=0,iters=100,utility=clip@stage=1;cfr-search:time=0,iters=100,utility=clip@stage=2"
R="expert:time=0,iters=1000,utility=bound;cfr-search:time=0,iters=100,utility=bound"
COMMON=(--samples 8 --seed 0 --replicates 100 --cfr-iterations 1000)
case "${1:-}" in
  micro1s2) zwick exploitability --game "$M12" "${COMMON[@]}" --agents "$I;$H;$E;$C;$H2;$R" --out experiments/results/utility/micro1s2 ;;
  micro2) zwick exploitability --game "$M2" "${COMMON[@]}" --agents "$I;$E;$C;$R" --out experiments/results/utility/micro2 ;;
  *) echo "usage: bash experiments/utility/micro.sh micro1s2|micro2" >&2; exit 2 ;;
esac
