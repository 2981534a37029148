"""The inference layer: a trained model as a translator (``Translator``), word alignment, the
inspector's scoring and completion, the engines (PyTorch and CTranslate2), the CT2 converter, the
translation cache, and the noisy channel (a reverse model's score of given translations).

Imports the network, data and search layers.
"""
