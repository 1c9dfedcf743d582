"""libtfenc from Python: a Transformer encoder (fast, and a glass box),
tokenizers, and model folders by sentence-transformers' and transformers'
names, over the C library through ctypes.

    import tfenc
    model = tfenc.SentenceTransformer("all-MiniLM-L6-v2")  # a sentence-transformers folder
    embeddings = model.encode(["I love NLP", "NLP is fun"])
    model.similarity(embeddings, embeddings)            # [2, 2]

    enc = tfenc.Encoder.from_file("bert-dir")          # Hugging Face BERT
    tok = tfenc.Tokenizer("bert-dir/vocab.txt")
    out = enc(**tok(["I love NLP"]), output_attentions=True)
    out.last_hidden_state                               # [1, T, D]
"""
from . import quantization, similarity
from ._lib import lib as _c
from ._runtime import runtime_info
from .colbert import ColBERT, colbert_scores
from .cross_encoder import CrossEncoder
from .encoder import ACTIVATIONS, POOLINGS, POSITIONS, Encoder, EncoderOutput
from .errors import (FileError, FormatError, InvalidArgumentError, NotFoundError,
                     OutOfMemoryError, ShapeError, TfencError, UnsupportedError)
from .fill_mask import FillMask
from .images import ImageClassifier, ZeroShotImageClassifier
from .pipelines import Classifier, TokenClassifier
from .quantization import hamming_distance, hamming_similarity, quantize_embeddings
from .sentence_transformer import SentenceTransformer
from .sparse_encoder import SparseEncoder
from .tokenizer import Tokenizer

SentenceEncoder = SentenceTransformer  # the earlier name, kept

__version__ = _c.tf_version_string().decode()

__all__ = ["Encoder", "EncoderOutput", "Tokenizer", "TfencError", "InvalidArgumentError",
           "ShapeError", "OutOfMemoryError", "FileError", "FormatError", "UnsupportedError",
           "NotFoundError", "ACTIVATIONS", "POSITIONS", "POOLINGS", "runtime_info",
           "SentenceTransformer", "SentenceEncoder", "SparseEncoder", "CrossEncoder", "Classifier",
           "TokenClassifier", "ImageClassifier", "ZeroShotImageClassifier", "FillMask", "ColBERT", "colbert_scores", "quantize_embeddings", "hamming_distance", "hamming_similarity", "similarity", "quantization",
           "__version__"]
