"""HF model -> ONNX export and quantization (needs the `export` extra: torch, transformers, optimum-onnx)."""
