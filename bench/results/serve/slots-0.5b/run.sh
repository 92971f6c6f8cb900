#!/usr/bin/env bash
# Issue 16: 8 concurrent requests to vericite serve on the 0.5B: in-process (parallel_docs 1 and 4) vs llama-server with 4 slots
set -uo pipefail
export PYTHONPATH=/work/qpkg6 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
PY=/work/main/.venv/bin/python
O=/work/qout5/slots
cd /work/qrun6
while [ ! -f /work/qout5/lat.done ]; do sleep 15; done
B="--concurrency 8 --requests 8 --warmup 1 --workers 4 --queue-size 8 --data /work/shared/data/hotpotqa.jsonl --start 350 --no-progress --json"
nice $V -q bench serve --spawn --llm qwen2.5-coder-0.5b-instruct-q4km $B --out-dir $O/inproc-1 > $O/inproc-1.json 2> $O/inproc-1.err
nice $V -q bench serve --spawn --llm qwen2.5-coder-0.5b-instruct-q4km --parallel-docs 4 $B --out-dir $O/inproc-4 > $O/inproc-4.json 2> $O/inproc-4.err
nice $PY -m vericite.engine.llama_server ~/.cache/vericite/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --port 8093 --parallel 4 --ctx 16384 --threads 1 > $O/server.log 2>&1 &
SP=$!
for i in $(seq 1 120); do curl -sf http://127.0.0.1:8093/health > /dev/null && break; sleep 1; done
VERICITE_MODELS_TOML=$O/models.toml nice $V -q bench serve --spawn --llm qwen2.5-coder-0.5b-server --parallel-docs 4 $B --out-dir $O/server-4 > $O/server-4.json 2> $O/server-4.err
kill $SP; wait $SP
echo done > $O/done
