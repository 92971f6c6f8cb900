#!/usr/bin/env bash
# Issue 16: 8 concurrent requests to `vericite serve` on the 0.5B, HotpotQA 350-357: the LLM in process vs on
# llama.cpp's server built for this CPU (`make llama-server-native`: llama-cpp-python 0.3.36's llama.cpp, the
# same version and -march=native as the in-process build; the run used a build with the same cmake flags in
# another folder), 4 slots, 2 and 1 threads; then the 5 items one at a time, one slot, against in process.
# One model process at a time. Nothing else ran during inproc-d900 and server4-t2; server4-t1's first minute
# shared the machine with a nice-15 compile (stopped then); the serial runs' seconds (compare.txt) are not
# comparable: they ran beside a compile and a conflicts benchmark (their texts are what they compare).
set -uo pipefail
V=.venv/bin/vericite
LS=build/llama-server-native/bin/llama-server
M=~/.cache/vericite/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
O=bench-out/native; mkdir -p $O
T=$O/models.toml
cat models.toml bench/results/serve/native/models-entry.toml > $T   # the registry + the server entry (port 8093)

B="--concurrency 8 --requests 8 --warmup 1 --workers 4 --queue-size 8 --data ../shared/data/hotpotqa.jsonl --start 350 --no-progress --json"
up() { for i in $(seq 1 120); do curl -sf http://127.0.0.1:8093/health > /dev/null && return 0; sleep 1; done; return 1; }
# in process; the first run (inproc-1) kept the server's default 300 s deadline and lost 2 requests to 504
$V -q bench serve --spawn --llm qwen2.5-coder-0.5b-instruct-q4km $B --out-dir $O/inproc-1 > $O/inproc-1.json
$V -q bench serve --spawn --llm qwen2.5-coder-0.5b-instruct-q4km --deadline 900 $B --out-dir $O/inproc-d900 > $O/inproc-d900.json
for TH in 2 1; do
  $LS -m $M --host 127.0.0.1 --port 8093 -np 4 -c 16384 -t $TH -fa off --no-webui > $O/server-t$TH.log 2>&1 &
  SP=$!; up
  VERICITE_MODELS_TOML=$T $V -q bench serve --spawn --llm qwen2.5-coder-0.5b-server --parallel-docs 4 $B --out-dir $O/server4-t$TH > $O/server4-t$TH.json
  kill $SP; wait $SP
done
# one at a time, one slot (answers and every LLM call's text compared by compare.py)
$LS -m $M --host 127.0.0.1 --port 8093 -np 1 -c 4096 -t 2 -fa off --no-webui > $O/server-np1.log 2>&1 &
SP=$!; up
VERICITE_MODELS_TOML=$T $V -q run --method vericite --llm qwen2.5-coder-0.5b-server --data ../shared/data/hotpotqa.jsonl --start 350 --limit 5 --out $O/serial-server.jsonl
kill $SP; wait $SP
$V -q run --method vericite --llm qwen2.5-coder-0.5b-instruct-q4km --data ../shared/data/hotpotqa.jsonl --start 350 --limit 5 --out $O/serial-inproc.jsonl
python bench/results/serve/native/compare.py $O/serial-server.jsonl $O/serial-inproc.jsonl > $O/compare.txt
