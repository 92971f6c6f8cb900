"""The checker: NLI scorers (ONNX cross-encoders, T5, Triton), the batcher, the score cache,
the number guard, grades, and loading one from models.toml."""
