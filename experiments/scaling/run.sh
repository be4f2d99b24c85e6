#!/usr/bin/env bash
# The scaling curve of expert iteration (experiments/results/learn/scaling/): an after model fitted
# from scratch on the first 300, 1,000 and 3,000 hands that the expert (1,000 iterations a
# decision, no clock) plays in 4-player Dithmarschen, each measured against greedy (200 duplicate
# deals) and ismcts:iters=2000 (100) on the same deals as every other net of the runs.
# Each run reuses the smaller run's hands (seed_chunks.py), so the whole curve plays 3,000 teacher
# hands. Resumable: rerun the same command. Usage: bash experiments/scaling/run.sh [RUNS_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-runs/scaling}
common=(--variant dithmarschen --hours 24 --generations 1 --teacher expert --teacher-iters 1000
  --teacher-visits 10 --eps 0.05 --epochs 3 --batch 512 --hidden 128,64 --strength-deals 200
  --ismcts-deals 100 --workers 2 --seed 1)
previous=""
for hands in ${HANDS:-300 1000 3000}; do
  run="$runs/h$hands"
  if [ -n "$previous" ] && [ ! -f "$run/gen-000.pt" ]; then
    python experiments/scaling/seed_chunks.py "$previous" "$run" "$hands"
  fi
  zwick train net "${common[@]}" --hands "$hands" --out "$run"
  previous=$run
done
