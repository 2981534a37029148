"""The network layer: what a trained model is (config, layers, tokenizer, checkpoint files).

Imports torch and sentencepiece only; every other layer builds on it.
"""
