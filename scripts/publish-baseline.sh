#!/usr/bin/env bash
# Re-publish a baseline from several default sim sweeps at independent seeds.
#
#   scripts/publish-baseline.sh [extra `fieldtest run` options...]
#
# Environment (all optional):
#   OUT    baseline file to write                 (default baselines/sim-default.json)
#   SEEDS  run seeds, space-separated             (default "1000 1001 1002 1003 1004 1005 1006 1007")
#   WORK   folder for the runs                    (default: a fresh temporary folder, removed after)
#
# The seeds are kept apart from the ones a user or the calibration benchmark runs (0 and up to a
# few hundred), so a run checked against the baseline is an independent sample, never one of its
# own runs. It runs in the repository root (OUT and WORK are relative to it). Run it after any change
# that moves sim results on purpose (engine, critic, gates, prompts, sim, corpus), and commit the
# baseline with that change.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT=${OUT:-baselines/sim-default.json}
SEEDS=${SEEDS:-"1000 1001 1002 1003 1004 1005 1006 1007"}
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

# This checkout's CLI, straight from its build (as scripts/nightly.sh calls it).
fieldtest() { node "$ROOT/bin/fieldtest.js" "$@"; }

dirs=()
for seed in $SEEDS; do
  dir="$WORK/seed-$seed"
  fieldtest run --seed "$seed" --out "$dir" --force "$@" > "$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
  echo "seed $seed: $(grep -m1 '^total' "$dir.log" || echo done)"
  dirs+=("$dir")
done
fieldtest baseline publish "${dirs[@]}" --out "$OUT"
