"""Models by name: a Hugging Face Hub id ("sentence-transformers/all-MiniLM-L6-v2") resolved to
a model folder in the Hub's cache, as sentence-transformers' classes take one, through the C
library's tf_hub_resolve (tfenc.h, "Models by name"; docs/hub.md): the cache huggingface_hub
shares (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface/hub), else a download of the files a folder
needs into it; HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE are read there.

    folder = tfenc.hub.resolve("sentence-transformers/all-MiniLM-L6-v2", revision="main")
"""
import ctypes
import os

from . import _lib
from ._args import c_path, c_string, flag
from ._lib import P, c_int32, c_int64, c_size_t, lib
from ._progress import progress
from .errors import error_for

VP, CP = ctypes.c_void_p, ctypes.c_char_p

# A folder's path as tf_hub_resolve writes it: Linux's PATH_MAX.
_PATH_BYTES = 4096

# sentence-transformers' organisation, which SentenceTransformer puts before a bare name
# (SentenceTransformer.py, __MODEL_HUB_ORGANIZATION__).
ST_ORGANIZATION = "sentence-transformers"

# Hub models of no organisation that SentenceTransformer takes by their bare name
# (SentenceTransformer.__init__, basic_transformer_models): no organisation put before them.
BASIC_TRANSFORMER_MODELS = frozenset((
    "albert-base-v1", "albert-base-v2", "albert-large-v1", "albert-large-v2", "albert-xlarge-v1",
    "albert-xlarge-v2", "albert-xxlarge-v1", "albert-xxlarge-v2",
    "bert-base-cased-finetuned-mrpc", "bert-base-cased", "bert-base-chinese",
    "bert-base-german-cased", "bert-base-german-dbmdz-cased", "bert-base-german-dbmdz-uncased",
    "bert-base-multilingual-cased", "bert-base-multilingual-uncased", "bert-base-uncased",
    "bert-large-cased-whole-word-masking-finetuned-squad", "bert-large-cased-whole-word-masking",
    "bert-large-cased", "bert-large-uncased-whole-word-masking-finetuned-squad",
    "bert-large-uncased-whole-word-masking", "bert-large-uncased", "camembert-base", "ctrl",
    "distilbert-base-cased-distilled-squad", "distilbert-base-cased",
    "distilbert-base-german-cased", "distilbert-base-multilingual-cased",
    "distilbert-base-uncased-distilled-squad", "distilbert-base-uncased-finetuned-sst-2-english",
    "distilbert-base-uncased", "distilgpt2", "distilroberta-base", "gpt2-large", "gpt2-medium",
    "gpt2-xl", "gpt2", "openai-gpt", "roberta-base-openai-detector", "roberta-base",
    "roberta-large-mnli", "roberta-large-openai-detector", "roberta-large", "t5-11b", "t5-3b",
    "t5-base", "t5-large", "t5-small", "transfo-xl-wt103", "xlm-clm-ende-1024",
    "xlm-clm-enfr-1024", "xlm-mlm-100-1280", "xlm-mlm-17-1280", "xlm-mlm-en-2048",
    "xlm-mlm-ende-1024", "xlm-mlm-enfr-1024", "xlm-mlm-enro-1024", "xlm-mlm-tlm-xnli15-1024",
    "xlm-mlm-xnli15-1024", "xlm-roberta-base", "xlm-roberta-large-finetuned-conll02-dutch",
    "xlm-roberta-large-finetuned-conll02-spanish", "xlm-roberta-large-finetuned-conll03-english",
    "xlm-roberta-large-finetuned-conll03-german", "xlm-roberta-large", "xlnet-base-cased",
    "xlnet-large-cased"))


class HubProgress(ctypes.Structure):  # since 0.4.0
    c_name = "tf_hub_progress"
    _fields_ = [("struct_size", c_size_t), ("repo_id", CP), ("file", CP),
                ("file_index", c_int32), ("file_count", c_int32), ("file_bytes", c_int64),
                ("file_size", c_int64), ("bytes", c_int64), ("total_bytes", c_int64),
                ("waiting", c_int32)]


PROGRESS_FN = ctypes.CFUNCTYPE(c_int32, P(HubProgress), VP)


class HubOptions(ctypes.Structure):  # since 0.4.0
    c_name = "tf_hub_options"
    _fields_ = [("struct_size", c_size_t), ("revision", CP), ("cache_dir", CP),
                ("endpoint", CP), ("token", CP), ("local_files_only", c_int32),
                ("progress", PROGRESS_FN), ("progress_user_data", VP)]


_differ = _lib._mismatches(lib, (HubOptions, HubProgress))
if _differ:
    raise ImportError("libtfenc's Hub structs differ from this binding's: " + _differ)
_lib._declare("tf_hub_options_init_sized", None, P(HubOptions), c_size_t)
_lib._declare("tf_model_resolve", ctypes.c_int, CP, P(HubOptions), ctypes.c_char_p, c_size_t,
              P(c_size_t))
_lib._declare("tf_hub_resolve", ctypes.c_int, CP, P(HubOptions), ctypes.c_char_p, c_size_t,
              P(c_size_t))


class _Bar:
    """A tf_hub_progress_fn drawing _progress's bar over a download's bytes, a bar for each
    batch of files the library reports (its file_count and total_bytes); an exception in it
    (KeyboardInterrupt) stops the download and is kept for the caller to raise."""

    def __init__(self, repo_id, show_progress_bar):
        self.repo_id, self.show = repo_id, show_progress_bar
        self.bar, self.batch, self.done, self.error = None, None, 0, None
        self.fn = PROGRESS_FN(self._on_progress)

    def _on_progress(self, p, _user):
        try:
            p = p.contents
            batch = (p.file_count, p.total_bytes)
            if batch != self.batch or p.bytes < self.done:  # the next batch's first report
                self.close()
                self.bar = progress(p.total_bytes, self.show, desc=f"Downloading {self.repo_id}")
                self.batch, self.done = batch, 0
            self.bar.update(p.bytes - self.done)
            self.done = p.bytes
            return 0
        except BaseException as e:  # noqa: B036 -- raised again by resolve()
            self.error = e
            return 1

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _token(token):
    """token as tf_hub_options.token: None and True the stored one (HF_TOKEN, the token
    file), False none, a str itself; huggingface_hub's meanings."""
    if token is None or token is True:
        return None
    if token is False:
        return b""
    if not isinstance(token, str):
        raise TypeError(f"token: expected a str, True, False or None, got {type(token).__name__}")
    return c_string(token, "token")


def _optional(value, name, convert):
    return None if value is None else convert(value, name)


def resolve(repo_id, *, revision=None, cache_folder=None, token=None, local_files_only=False,
            endpoint=None, show_progress_bar=None):
    """The folder (str) of the Hub id repo_id ("name" or "org/name") at revision (a branch, tag
    or commit; None: "main"), from the cache at cache_folder (None: the environment's) or
    downloaded into it; local_files_only: the cache only. token as huggingface_hub takes it.
    show_progress_bar None shows a download's bar only when stderr is a terminal. Errors are
    the library's: InvalidArgumentError (not an id, a bad revision), NotFoundError (no such
    repository, revision or file; a private one without a token), FileError (the network, a
    file), UnsupportedError (a repository with pytorch_model.bin and no model.safetensors)."""
    if not isinstance(repo_id, str):
        raise TypeError(f"repo_id: expected a str, got {type(repo_id).__name__}")
    return _call(lib.tf_hub_resolve, c_string(repo_id, "repo_id"), repo_id, revision,
                 cache_folder, token, local_files_only, endpoint, show_progress_bar)


def _call(fn, name, shown, revision, cache_folder, token, local_files_only, endpoint,
          show_progress_bar):
    """fn (tf_hub_resolve or tf_model_resolve) of name with the options, its folder as a
    str; the progress bar names `shown`."""
    o = _lib.new(HubOptions)
    o.revision = _optional(revision, "revision", c_string)
    o.cache_dir = _optional(cache_folder, "cache_folder", c_path)
    o.endpoint = _optional(endpoint, "endpoint", c_string)
    o.token = _token(token)
    o.local_files_only = flag(local_files_only, "local_files_only")
    bar = _Bar(shown, show_progress_bar)
    o.progress = bar.fn
    folder = ctypes.create_string_buffer(_PATH_BYTES)
    try:
        status = fn(name, ctypes.byref(o), folder, _PATH_BYTES, None)
    finally:
        bar.close()
    if bar.error is not None:
        raise bar.error
    if status:
        raise error_for(lib.tf_status_name(status).decode(),
                        lib.tf_last_error().decode(errors="replace"))
    return os.fsdecode(folder.value)


def model_folder(model_name_or_path, *, revision=None, cache_folder=None, token=None,
                 local_files_only=False, organization=None, show_progress_bar=None):
    """The path (file system bytes) of the folder model_name_or_path names, as the library's
    tf_model_resolve reads it for every surface: itself when something is there (or it is not
    a str: a path); else the folder of the Hub id it is (resolve), a bare name first given the
    organization when that is set (SentenceTransformer's ST_ORGANIZATION), as
    sentence-transformers does. A name that is neither is a FileError saying both; the Hub's
    errors are resolve's, their message after "<name>: no such folder; as a Hub id: "."""
    path = c_path(model_name_or_path, "model_name_or_path")
    if not isinstance(model_name_or_path, str):
        return path
    name = model_name_or_path
    if os.path.lexists(path):
        revision = None  # a path has none; sentence-transformers ignores it there
    elif organization and "/" not in name and name.lower() not in BASIC_TRANSFORMER_MODELS:
        name = f"{organization}/{name}"
    return c_path(_call(lib.tf_model_resolve, c_path(name, "model_name_or_path"), name,
                        revision, cache_folder, token, local_files_only, None,
                        show_progress_bar))
