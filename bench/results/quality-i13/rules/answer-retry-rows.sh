#!/usr/bin/env bash
# after /work/qout12's queue: answer_retry on the three recorded items whose stage 1 said nothing
# (HotpotQA 119, ASQA 5 and 8), tree /work/qrun13; then issue 16's vLLM trial. One model process at a time.
set -uo pipefail
while [ ! -f /work/qout12/all.done ]; do sleep 15; done
export PYTHONPATH=/work/qpkg13 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout13
cd /work/qrun13
r() { nice $V -q run --no-progress --out $O/retry.jsonl --method vericite "$@"; }
r --data $D/hotpotqa.jsonl --start 119 --limit 1
r --data $D/asqa.jsonl --start 5 --limit 1
r --data $D/asqa.jsonl --start 8 --limit 1
echo done > $O/retry.done
/work/vllm-model/trial.sh > /work/vllm-model/out/trial.log 2>&1
echo done > $O/all.done
