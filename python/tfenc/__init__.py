"""libtfenc from Python: a Transformer encoder (fast, and a glass box) and
BERT's WordPiece tokenizer, over the C library through ctypes.

    import tfenc
    enc = tfenc.Encoder.from_file("bert-dir")          # Hugging Face BERT
    tok = tfenc.Tokenizer("bert-dir/vocab.txt")
    out = enc(**tok(["I love NLP"]), output_attentions=True)
    out.last_hidden_state                               # [1, T, D]
"""
from ._lib import lib as _c
from ._runtime import runtime_info
from .encoder import ACTIVATIONS, POOLINGS, POSITIONS, Encoder, EncoderOutput
from .errors import (FileError, FormatError, InvalidArgumentError, NotFoundError,
                     OutOfMemoryError, ShapeError, TfencError, UnsupportedError)
from .pipelines import Classifier, CrossEncoder, SentenceEncoder, TokenClassifier
from .tokenizer import Tokenizer

__version__ = _c.tf_version_string().decode()

__all__ = ["Encoder", "EncoderOutput", "Tokenizer", "TfencError", "InvalidArgumentError",
           "ShapeError", "OutOfMemoryError", "FileError", "FormatError", "UnsupportedError",
           "NotFoundError", "ACTIVATIONS", "POSITIONS", "POOLINGS", "runtime_info",
           "SentenceEncoder", "CrossEncoder", "Classifier", "TokenClassifier", "__version__"]
