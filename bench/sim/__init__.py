"""The simulation every section runs on: a scripted model and a search provider.

Both answer after a fixed latency; the model counts prompt and completion tokens with a real
tokenizer on the real prompts (:mod:`bench.sim.tokens`).
"""
