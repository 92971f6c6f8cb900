#!/usr/bin/env bash
# Issue 17: the latency run as it ran (the tail of ../ru-xquad/ru.sh, from a copy of the tree at 743d204's parent state)
cd "$(dirname "$0")/../../.."
vericite -q bench latency --data ../shared/data/hotpotqa.jsonl --start 300 --limit 5 --modes scheduled,parallel,vanilla \
  --parallel-docs 4 --out-dir bench-out/latency-1.5b --json
