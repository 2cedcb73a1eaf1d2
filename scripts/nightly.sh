#!/usr/bin/env bash
# Nightly regression sweep: run (which writes its reports), diff, gate, trend.
#
#   scripts/nightly.sh [extra `fieldtest run` options...]
#
# Environment (all optional):
#   BASELINE  published baseline to judge against   (default baselines/sim-default.json)
#   POLICY    pre-registered gate policy             (default gate.sim.yaml, calibrated on the sim;
#             a live model is gated by gate.yaml, the product's floors)
#   HISTORY   folder that keeps one run per night    (default reports/nightly)
#   WINDOW    trailing window of the drift monitor   (default 5)
#   KEEP      nights the trend looks back over       (default 30)
#
# Writes HISTORY/<UTC stamp>/ (the run with the reports `run` writes, diff.txt, diff.json,
# gate.txt, gate-junit.xml, trend.txt) and exits with the gate's code: 0 pass, 1 regression,
# 2 inconclusive, 3 infrastructure error. The diff and the trend inform; only the gate decides.
# BASELINE and POLICY are checked before the sweep starts: a missing or invalid one stops the
# night with exit 2 before anything is spent.
set -euo pipefail

BASELINE=${BASELINE:-baselines/sim-default.json}
POLICY=${POLICY:-gate.sim.yaml}
HISTORY=${HISTORY:-reports/nightly}
WINDOW=${WINDOW:-5}
KEEP=${KEEP:-30}
OUT="$HISTORY/$(date -u +%Y%m%dT%H%M%SZ)"

# This checkout's CLI, straight from its build (npx would add a second of npm start-up per command).
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
fieldtest() { node "$ROOT/bin/fieldtest.js" "$@"; }

node "$ROOT/dist/scripts/check-gate-inputs.js" "$BASELINE" "$POLICY"
mkdir -p "$HISTORY"
# A run that cannot complete (bad options, failed canary, budget refused) is the gate's exit 3 or
# the CLI's exit 2: stop here with its code. A completed run has written its reports.
fieldtest run --out "$OUT" "$@"

set +e
fieldtest diff "$OUT" --baseline "$BASELINE" --json-out "$OUT/diff.json" > "$OUT/diff.txt"
fieldtest gate "$OUT" --baseline "$BASELINE" --policy "$POLICY" --junit "$OUT/gate-junit.xml" > "$OUT/gate.txt"
gate_rc=$?
mapfile -t runs < <(find "$HISTORY" -mindepth 1 -maxdepth 1 -type d | sort | tail -n "$KEEP")
fieldtest trend "${runs[@]}" --baseline "$BASELINE" --window "$WINDOW" > "$OUT/trend.txt"
set -e

echo "run:   $OUT"
grep -m1 '^deltas:' "$OUT/diff.txt" | sed 's/^/diff:  /' || true
tail -n 1 "$OUT/gate.txt"
grep -m1 '^alerts:' "$OUT/trend.txt" | sed 's/^/trend: /' || true
exit "$gate_rc"
