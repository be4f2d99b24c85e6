#!/usr/bin/env bash
# `zwick --help` and `zwick tournament --help` start-up: medians of 5 runs of another checkout
# (OLD=path, e.g. a worktree of an older commit) and of this one, alternating, at the same load.
# Usage: OLD=../zwick-old bash benchmarks/help_time.sh
set -euo pipefail
old_tree=${OLD:?set OLD to a checkout to compare with}
new_tree=$PWD
seconds() { local s e; s=$(date +%s.%N); (cd "$1" && PYTHONPATH="$1" python -m zwick_ai.cli $2 --help >/dev/null); e=$(date +%s.%N); echo "$e - $s" | bc; }
for cmd in "" "tournament"; do
  old=(); new=()
  for _ in 1 2 3 4 5; do
    old+=("$(seconds "$old_tree" "$cmd")")
    new+=("$(seconds "$new_tree" "$cmd")")
  done
  echo "zwick $cmd --help: before $(printf '%s\n' "${old[@]}" | sort -n | sed -n 3p) s, after $(printf '%s\n' "${new[@]}" | sort -n | sed -n 3p) s (medians of 5)"
done
s=$(date +%s.%N); python -c pass; e=$(date +%s.%N); echo "python -c pass: $(echo "$e - $s" | bc) s"
uptime
