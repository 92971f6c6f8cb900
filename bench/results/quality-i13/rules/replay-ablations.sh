#!/usr/bin/env bash
# issue 13 rule ablations by replay (recorded LLM replies, real checker), then both evaluators
set -uo pipefail
cd /work/main
V="nice .venv/bin/vericite -q"
O=/work/s6/rp
REP=bench/results/quality-i13/facts/vericite.jsonl
TUNE=bench/results/quality-i13/tune/facts.jsonl
rp() { name=$1; shift
  $V bench replay $REP --method vericite --out $O/$name-rep.jsonl --label "$name" --nli-cache $O/cache.sqlite --no-progress "$@" > $O/$name.log 2>&1
  $V bench replay $TUNE --method vericite-facts --out $O/$name-tune.jsonl --label "$name" --nli-cache $O/cache.sqlite --no-progress "$@" >> $O/$name.log 2>&1; }
rp off --set backbone_facts=0 --set add_nothing=false --set claim_guard=false
rp guard --set backbone_facts=0 --set add_nothing=false
rp guard-add --set backbone_facts=0
rp all
rp facts4 --set backbone_facts=4
rp all-noadd --set add_nothing=false
echo done > $O/replay.done
for e in e1 e2; do
  extra=""; [ $e = e2 ] && extra="--nli nli-minilm-l6-hn-int8 --threshold 0.5056"
  $V eval bench/results/quality-i13/vanilla.jsonl $O/*-rep.jsonl $extra --no-progress --nli-cache $O/eval-$e-cache.sqlite --json --out $O/eval-rep-$e.json > /dev/null 2> $O/eval-rep-$e.err
  $V eval bench/results/quality-i13/tune/tune.jsonl $O/*-tune.jsonl $extra --no-progress --nli-cache $O/eval-$e-cache.sqlite --json --out $O/eval-tune-$e.json > /dev/null 2> $O/eval-tune-$e.err
done
echo done > $O/eval.done
# then (this session): backbone_facts=4 with the two-stem rule, and the defaults at HEAD:
#   vericite -q bench replay .../facts/vericite.jsonl --method vericite --set backbone_facts=4 --label vericite-backbone-facts-4 ...
#   replay-defaults.sh; the tables: eval3-*.json = this folder's replay-*-e1/e2.json (eval of vanilla + off, guard,
#   guard-add, vericite-defaults, vericite-backbone-facts-4 [+ vericite-inline on the tuning items])
# "off" reproduces the recorded answers on 77 of 80 reported rows (the 3 others: `carried` now compares stems
#   and leaves out prompt words, so three junk stage-1 sentences are no longer put back)
