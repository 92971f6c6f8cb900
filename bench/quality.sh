#!/usr/bin/env bash
# The quality benchmark of README "Quality": every method on the same items, then eval and report.
#   bench/quality.sh [N_PER_DATASET] [OUT_DIR] [extra `vericite run` options, e.g. --llm NAME]
# Resumable: rerun the same command after an interruption; finished items are skipped.
set -euo pipefail
N=${1:-3}
OUT=${2:-bench-out/quality}
shift $(( $# > 2 ? 2 : $# )) || true
DATA=${VERICITE_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}/data
mkdir -p "$OUT"
METHODS="vanilla vericite vericite-no-nli vericite-llm"
for ds in hotpotqa musique asqa eli5; do
  for m in $METHODS; do
    vericite -q run --method "$m" --data "$DATA/$ds.jsonl" --limit "$N" --out "$OUT/$m.jsonl" "$@"
  done
done
vericite -q eval $(for m in $METHODS; do echo "$OUT/$m.jsonl"; done) --out "$OUT/eval.json" --details "$OUT/details.jsonl"
vericite -q report "$OUT/eval.json" --out "$OUT/report.md"
cat "$OUT/report.md"
