"""The inference layer: a trained model as a translator (``Translator``), word alignment, the
inspector's scoring and completion, the engines (PyTorch and CTranslate2), the CT2 converter and
the translation cache.

Imports the network, data and search layers.
"""
