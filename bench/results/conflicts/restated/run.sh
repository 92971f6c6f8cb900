#!/usr/bin/env bash
# Issue 14: the valid planted set (each fact once) with and without the restated check (conflict_restated),
# chosen on HotpotQA 0-19 and XQuAD-ru 0-14 (the articles of items 0-11: *-tune.json), held out: *-held.json
cd "$(dirname "$0")/../../../.."
vericite -q bench conflicts --lang en --start 20 --limit 40 --threshold 0.7 --related 0.5 --restated both --threads 2 --json > bench/results/conflicts/restated/en-held.json
vericite -q bench conflicts --lang ru --nli nli-me5-small-ru-int8 --start 15 --limit 50 --threshold 0.55 --related 0.35 --restated both --threads 2 --json > bench/results/conflicts/restated/ru-held.json
vericite -q bench conflicts --lang en --start 0 --limit 20 --threshold 0.7 --related 0.5 --restated both --threads 2 --json > bench/results/conflicts/restated/en-tune.json
vericite -q bench conflicts --lang ru --nli nli-me5-small-ru-int8 --start 0 --limit 15 --threshold 0.55 --related 0.35 --restated both --threads 2 --json > bench/results/conflicts/restated/ru-tune.json
