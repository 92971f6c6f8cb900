"""Benchmarks (latency, quality, ALCE metrics): not part of the run-time path."""
