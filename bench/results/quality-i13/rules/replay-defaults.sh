#!/usr/bin/env bash
set -uo pipefail
cd /work/main
V="nice .venv/bin/vericite -q"
O=/work/s6/rp
$V bench replay bench/results/quality-i13/facts/vericite.jsonl --method vericite --out $O/defaults-rep.jsonl --label vericite-defaults --nli-cache $O/cache.sqlite --no-progress > $O/defaults.log 2>&1
$V bench replay bench/results/quality-i13/tune/facts.jsonl --method vericite-facts --out $O/defaults-tune.jsonl --label vericite-defaults --nli-cache $O/cache.sqlite --no-progress >> $O/defaults.log 2>&1
for e in e1 e2; do
  extra=""; [ $e = e2 ] && extra="--nli nli-minilm-l6-hn-int8 --threshold 0.5056"
  $V eval bench/results/quality-i13/vanilla.jsonl $O/off-rep.jsonl $O/guard-add-rep.jsonl $O/defaults-rep.jsonl $O/facts4-rep.jsonl $extra --no-progress --nli-cache $O/eval-$e-cache.sqlite --json --out $O/eval2-rep-$e.json > /dev/null 2>> $O/defaults.log
  $V eval bench/results/quality-i13/tune/tune.jsonl $O/off-tune.jsonl $O/guard-add-tune.jsonl $O/defaults-tune.jsonl $O/facts4-tune.jsonl $extra --no-progress --nli-cache $O/eval-$e-cache.sqlite --json --out $O/eval2-tune-$e.json > /dev/null 2>> $O/defaults.log
done
echo done > $O/final.done
