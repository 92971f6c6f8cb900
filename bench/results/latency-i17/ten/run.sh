#!/usr/bin/env bash
# Issue 17: 10 HotpotQA items, the sequential reference, the default (scheduled) and one ALCE pass, items
# alternating, default 1.5B with facts-en-kv and the repeated-line stop (tree at 101bfaf), idle machine
cd "$(dirname "$0")/../../../.."
vericite -q bench latency --data ../shared/data/hotpotqa.jsonl --start 300 --limit 10 --modes reference,scheduled,vanilla \
  --out-dir bench-out/latency-ten --json
