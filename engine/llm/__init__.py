"""The LLM backends: llama.cpp in process (its own greedy loop, its batching session),
OpenAI-compatible servers, llama-server; grammars and decoding helpers."""
