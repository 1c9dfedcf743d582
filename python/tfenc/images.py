"""Images through an image pipeline (tf_pipeline_embed_images,
tf_pipeline_classify_images, tf_pipeline_zero_shot): what
SentenceTransformer.encode runs for a vision folder (sentence-transformers'
CLIP folders, CLIP, SigLIP, ViTModel), tfenc.ImageClassifier, shaped as
transformers' image-classification pipeline, and tfenc.ZeroShotImageClassifier
(a whole CLIP or SigLIP folder), shaped as its zero-shot-image-classification
pipeline. An image is a PIL.Image.Image (converted to RGB, as the processors'
convert_rgb; its EXIF orientation is not applied, as transformers does not
apply it to an Image given), a uint8 numpy array [H, W, 3] (RGB), a path
(pathlib.Path or another os.PathLike: the file is decoded by libtfenc, EXIF
orientation applied, as transformers' load_image does) or the bytes of a
JPEG, PNG or WebP file. A str is refused: sentence-transformers reads a str
as a text, for a CLIP folder's text tower."""
import ctypes
import os
import re

import numpy as np

from . import _lib
from ._args import c_string, integer, text_items
from ._lib import P, c_float, c_int32, c_size_t, check, lib
from ._progress import progress
from .errors import TfencError
from .pipelines import _Pipeline, top_k_of

VP = ctypes.c_void_p
U8P = P(ctypes.c_uint8)


class ImageArgs(ctypes.Structure):  # since 0.5.0
    c_name = "tf_image_args"
    _fields_ = [("struct_size", c_size_t), ("n", c_size_t), ("data", P(U8P)),
                ("sizes", P(c_size_t)), ("pixels", U8P), ("pixel_values", P(c_float)),
                ("height", c_int32), ("width", c_int32), ("normalize", c_int32),
                ("batch_size", c_int32), ("n_threads", c_int32), ("max_pixels", ctypes.c_int64),
                ("out", P(c_float)), ("out_len", c_size_t), ("first_index", c_size_t),
                ("trace", _lib.TRACE_FN), ("trace_user_data", VP)]


_differ = _lib._mismatches(lib, (ImageArgs,))
if _differ:
    raise ImportError("libtfenc's image structs differ from this binding's: " + _differ)

for _name, _res, _args in [
    ("tf_image_args_init_sized", None, [P(ImageArgs), c_size_t]),
    ("tf_pipeline_embed_images", ctypes.c_int, [VP, P(ImageArgs)]),
    ("tf_pipeline_classify_images", ctypes.c_int, [VP, P(ImageArgs)]),
    ("tf_pipeline_zero_shot", ctypes.c_int, [VP, P(ImageArgs), P(ctypes.c_char_p), c_size_t]),
]:
    _lib._declare(_name, _res, *_args)

_IMAGE = "a PIL image, a uint8 array [H, W, 3], a path (pathlib.Path) or a file's bytes"


def _one(image, name):
    """image as ("file", bytes) or ("pixels", a C-contiguous uint8 [H, W, 3])."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        return "file", bytes(image)
    if isinstance(image, os.PathLike):
        with open(image, "rb") as f:
            return "file", f.read()
    if isinstance(image, str):
        raise TypeError(f"{name}: a str is a text (sentence-transformers' CLIP reads it so), "
                        f"and a vision folder's text tower is not loaded; pass an image: "
                        f"{_IMAGE}")
    if type(image).__module__.startswith("PIL."):  # PIL.Image.Image, without importing PIL
        image = np.asarray(image.convert("RGB"))
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"{name}: expected a uint8 array [H, W, 3] (RGB), got "
                             f"{image.dtype} {list(image.shape)}")
        return "pixels", np.ascontiguousarray(image)
    raise TypeError(f"{name}: expected {_IMAGE}, got {type(image).__name__}")


def image_items(images, name):
    """(the images as _one gives them, single): one image, or a list
    (tuple, iterable) of them."""
    if isinstance(images, np.ndarray) and images.ndim == 4:  # [n, H, W, 3]
        images = list(images)
    try:
        single = True
        items = [_one(images, name)]
    except TypeError:
        if isinstance(images, (str, bytes)) or not hasattr(images, "__iter__"):
            raise
        single = False
        items = [_one(image, f"{name}[{i}]") for i, image in enumerate(images)]
    return items, single


def _runs(items, batch_size):
    """(first, last) ranges of items to pass in one call: files together,
    arrays of one shape together, batch_size at most."""
    first = 0
    while first < len(items):
        form, value = items[first]
        last = first + 1
        while last < len(items) and last - first < batch_size and items[last][0] == form and (
                form == "file" or items[last][1].shape == value.shape):
            last += 1
        yield first, last
        first = last


def _renamed(error, name, single):
    """error with the library's "image N" as the caller's name of input N."""
    where = (lambda m: name) if single else (lambda m: f"{name}[{m.group(1)}]")
    return type(error)(re.sub(r"\bimage (\d+)\b", where, str(error), count=1), error.status)


def run_images(pipeline, fn, images, name, width, batch_size=32, normalize=False,
               show_progress_bar=False):
    """([n, width] float32 of fn over images, single)."""
    batch_size = integer(batch_size, "batch_size", 1)
    items, single = image_items(images, name)
    out = np.zeros((len(items), width), dtype=np.float32)
    bar = progress(-(-len(items) // batch_size), show_progress_bar)
    try:
        with pipeline._borrow() as h:
            for first, last in _runs(items, batch_size):
                a = _lib.new(ImageArgs)
                a.n, a.normalize, a.batch_size, a.first_index = last - first, normalize, \
                    batch_size, first
                values = [items[i][1] for i in range(first, last)]
                if items[first][0] == "file":
                    data = (U8P * len(values))(*[ctypes.cast(ctypes.c_char_p(v), U8P)
                                                 for v in values])
                    sizes = (c_size_t * len(values))(*[len(v) for v in values])
                    a.data, a.sizes = data, sizes
                else:
                    pixels = np.ascontiguousarray(np.stack(values))  # [n, H, W, 3]
                    a.pixels = pixels.ctypes.data_as(U8P)
                    a.height, a.width = pixels.shape[1], pixels.shape[2]
                rows = out[first:last]  # [n, width], C-contiguous
                a.out, a.out_len = rows.ctypes.data_as(P(c_float)), rows.size
                try:
                    check(fn(h, ctypes.byref(a)))
                except TfencError as e:
                    raise _renamed(e, name, single) from None
                bar.update(1)
    finally:
        bar.close()
    return out, single


class ImageClassifier(_Pipeline):
    """ImageClassifier(path): a ViTForImageClassification folder, called as
    transformers' pipeline("image-classification") is: one image gives
    [{"label", "score"}, ...] best first, a list of images a list of those;
    top_k (default 5, as upstream; None: every label) keeps the best ones.
    Scores are upstream's function_to_apply "default": softmax, or sigmoid
    for one label or problem_type multi_label_classification."""
    _kinds = ("image-classifier",)

    @property
    def labels(self):
        """id2label's names, in id order."""
        with self._borrow() as h:
            return [lib.tf_pipeline_label(h, i).decode() for i in range(lib.tf_pipeline_dim(h))]

    def predict_proba(self, images, batch_size=32):
        """[n, labels] float32 probabilities ([labels] for one image)."""
        with self._borrow() as h:
            labels = lib.tf_pipeline_dim(h)
        probs, single = run_images(self, lib.tf_pipeline_classify_images, images, "images",
                                   labels, batch_size)
        return probs[0] if single else probs

    def __call__(self, images, top_k=5, batch_size=32):
        top_k = top_k_of(top_k)
        labels = self.labels
        probs, single = run_images(self, lib.tf_pipeline_classify_images, images, "images",
                                   len(labels), batch_size)
        keep = len(labels) if top_k is None else min(top_k, len(labels))
        out = []
        for row in probs:
            order = sorted(range(len(labels)), key=lambda i: (-row[i], i))[:keep]
            out.append([{"label": labels[i], "score": float(row[i])} for i in order])
        return out[0] if single else out


class ZeroShotImageClassifier(_Pipeline):
    """ZeroShotImageClassifier(path): a whole CLIPModel or SiglipModel folder (both
    towers and a tokenizer), called as transformers'
    pipeline("zero-shot-image-classification") is: image(s), candidate_labels,
    hypothesis_template ("This is a photo of {}." by default, as upstream) give
    [{"score", "label"}, ...] best first per image (a list of those for a list
    of images); scores are CLIP's softmax over the labels, SigLIP's sigmoid."""
    _kinds = ("image-embedding",)

    def predict_proba(self, images, texts, batch_size=32):
        """[n, len(texts)] float32 ([len(texts)] for one image): the probability of
        each text (as given, no template) per image."""
        labels, _ = text_items(texts, "texts", c_string)
        if not labels:
            raise ValueError("texts: expected at least one text")
        array = (ctypes.c_char_p * len(labels))(*labels)

        def zero_shot(h, a):
            return lib.tf_pipeline_zero_shot(h, a, array, len(labels))
        probs, single = run_images(self, zero_shot, images, "images", len(labels), batch_size)
        return probs[0] if single else probs

    def __call__(self, images, candidate_labels, hypothesis_template="This is a photo of {}.",
                 batch_size=32):
        labels, _ = text_items(candidate_labels, "candidate_labels", lambda t, n: t)
        probs = self.predict_proba(images, [hypothesis_template.format(x) for x in labels],
                                   batch_size)
        rows = [probs] if probs.ndim == 1 else probs
        out = [[{"score": float(score), "label": label}
                for score, label in sorted(zip(row, labels), key=lambda x: -x[0])]
               for row in rows]
        return out[0] if probs.ndim == 1 else out
