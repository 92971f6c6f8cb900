#!/usr/bin/env bash
# Conflicts' related bar (conflict_related) on held-out items; the bars were chosen on XQuAD-ru 0-11 and
# HotpotQA 0-19 from per-candidate scores of the same candidates (0.35 ru, 0.5 en)
cd "$(dirname "$0")/../../../.."
vericite -q bench conflicts --lang ru --nli nli-me5-small-ru-int8 --start 12 --limit 28 --threshold 0.55 --related 0 0.35 --threads 1 --json > bench/results/conflicts/related/ru-held.json
vericite -q bench conflicts --lang en --start 20 --limit 40 --threshold 0.7 --related 0 0.5 --threads 1 --json > bench/results/conflicts/related/en-held.json
