"""Model configuration: one dataclass, saved in every checkpoint, from which the model is rebuilt.

Presets name the three sizes we support:

- ``tiny``  (~1M parameters): learns a 40-pair corpus by heart in about a minute on CPU; used by tests.
- ``small`` (~9M): the CPU release size. Deep encoder, shallow decoder: decoding cost grows with
  decoder depth only, and Kasai et al. (2021, "Deep Encoder, Shallow Decoder") show that moving
  layers from the decoder to the encoder keeps quality while making translation faster.
- ``base``  (~60M with a 32k vocabulary): Transformer-base from Vaswani et al. (2017), for a GPU.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


def require_int(name: str, value: object, minimum: int) -> None:
    """Raise ValueError unless value is an int (not a bool) >= minimum."""
    # bool is an int subclass, but True as a size is always a caller bug.
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 8000        # joint German+English SentencePiece vocabulary, incl. 4 specials
    d_model: int = 256            # width of embeddings and residual stream
    n_heads: int = 4              # attention heads; d_model must divide evenly
    d_ff: int = 1024              # hidden width of the position-wise feed-forward network
    encoder_layers: int = 6       # encoder depth
    decoder_layers: int = 3       # decoder depth (the cost of every decoding step)
    dropout: float = 0.1          # on sublayer outputs, embeddings and FFN activations
    attention_dropout: float = 0.0  # on attention weights (the paper uses none)
    max_len: int = 512            # longest sequence the sinusoid table covers (tokens)
    pre_norm: bool = True         # pre-norm (stable without long warmup); False = the paper's post-norm
    label_smoothing: float = 0.1  # training target smoothing, kept with the model it shaped

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model!r} is not divisible by n_heads {self.n_heads!r}")
        for name in ("vocab_size", "d_model", "n_heads", "d_ff", "encoder_layers", "decoder_layers", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("dropout", "attention_dropout", "label_smoothing"):
            value = getattr(self, name)
            if not 0.0 <= value < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {value!r}")

    @property
    def max_source_pieces(self) -> int:
        """The most pieces of one input the model reads: ``max_len`` less the room for EOS."""
        return self.max_len - 1

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown model config keys {unknown!r}")
        return cls(**data)

    def replace(self, **changes: Any) -> "ModelConfig":
        return replace(self, **changes)

    def network(self) -> dict[str, Any]:
        """The fields that give the weights their meaning: all but the training knobs, so that two
        checkpoints whose runs differed only in dropout or label smoothing hold comparable weights
        (a run fine-tuned with ``train.py --init --dropout``, averaged with its start)."""
        return {k: v for k, v in self.to_dict().items() if k not in TRAINING_ONLY}


# What only training uses: a translating model is the same network whatever they were.
TRAINING_ONLY = ("dropout", "attention_dropout", "label_smoothing")


PRESETS: dict[str, ModelConfig] = {
    "tiny": ModelConfig(vocab_size=1000, d_model=128, n_heads=4, d_ff=512,
                        encoder_layers=2, decoder_layers=2, dropout=0.0, max_len=256),
    "small": ModelConfig(),
    # the release's shape since v3.6: trained on a GPU, served on a CPU (MODEL_CARD.md)
    "medium": ModelConfig(vocab_size=12000, d_model=384, n_heads=6, d_ff=1536),
    "base": ModelConfig(vocab_size=32000, d_model=512, n_heads=8, d_ff=2048,
                        encoder_layers=6, decoder_layers=6, dropout=0.1),
}


def preset(name: str) -> ModelConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)!r}")
    return PRESETS[name]
