"""tfenc.SentenceTransformer: sentence-transformers' SentenceTransformer
(5.x, sentence_transformers/SentenceTransformer.py) by its names, over a
sentence-transformers folder (or a plain model folder: mean pooling) that
tf_pipeline runs: encode, encode_query, encode_document, similarity,
similarity_pairwise, get_sentence_embedding_dimension, prompts,
default_prompt_name, similarity_fn_name, truncate_dim, max_seq_length,
tokenizer, and encode's token embeddings. What needs torch (training,
devices) is not here; docs/python.md lists where it differs."""
import contextlib
import json
import logging
import os

import numpy as np

from . import hub
from ._args import c_string, flag, integer, text_items
from ._lib import lib
from ._tensors import convert
from .colbert import token_vectors
from .images import run_images
from .pipelines import _Pipeline, name_of
from .quantization import precision_of, quantize_embeddings
from .similarity import SIMILARITY_FUNCTIONS, similarity, similarity_pairwise

_log = logging.getLogger("tfenc")
_DOCUMENT_PROMPTS = ("document", "passage", "corpus")  # encode_document's, in upstream's order


def cpu_only(device):
    """device as sentence-transformers takes it: None or the CPU, where libtfenc runs."""
    if device is None:
        return
    kind = device if isinstance(device, str) else getattr(device, "type", None)  # torch.device
    if not isinstance(kind, str) or kind.split(":")[0] != "cpu":
        raise ValueError(f"device: libtfenc runs on the CPU, got {device!r}")


def _pooling_includes_prompt(folder):
    """Whether the folder's Pooling module pools a prompt's tokens
    (include_prompt; True without one). tf_pipeline_load has read and
    checked these files already."""
    modules = os.path.join(folder, "modules.json")
    if not os.path.exists(modules):
        return True
    with open(modules, encoding="utf-8") as f:
        for module in json.load(f):
            if module["type"].endswith(".Pooling"):
                with open(os.path.join(folder, module["path"], "config.json"),
                          encoding="utf-8") as g:
                    return json.load(g).get("include_prompt", True)
    return True


def _has_text(inputs):
    """Whether encode()'s inputs hold a text: a str, or a list or tuple with one."""
    return isinstance(inputs, str) or (isinstance(inputs, (list, tuple)) and
                                       any(isinstance(x, str) for x in inputs))


class SentenceTransformer(_Pipeline):
    """SentenceTransformer(model_name_or_path): a sentence-transformers
    folder, used as sentence-transformers' SentenceTransformer is: a path,
    or a Hugging Face Hub id (a bare name is sentence-transformers', as
    upstream takes it) from the Hub's cache or downloaded into it
    (cache_folder None: SENTENCE_TRANSFORMERS_HOME, else the Hub's cache;
    revision, token, local_files_only as upstream). device None or "cpu";
    trust_remote_code is accepted (no code from a folder runs). tfenc's
    own, keyword-only: max_seq_length (None: the folder's) and
    truncation_error (True: a longer input is an error, not cut)."""
    _kinds = ("embedding", "image-embedding")
    _organization = hub.ST_ORGANIZATION

    def __init__(self, model_name_or_path, *, device=None, prompts=None, default_prompt_name=None,
                 similarity_fn_name=None, cache_folder=None, trust_remote_code=False,
                 revision=None, local_files_only=False, token=None, truncate_dim=None,
                 max_seq_length=None, truncation_error=False):
        cpu_only(device)
        flag(trust_remote_code, "trust_remote_code")
        if prompts is not None and not (isinstance(prompts, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in prompts.items())):
            raise TypeError(f"prompts: expected a dict of names to prompt texts (str), got "
                            f"{prompts!r}")
        if cache_folder is None:
            cache_folder = os.getenv("SENTENCE_TRANSFORMERS_HOME")
        super().__init__(model_name_or_path, max_seq_length=max_seq_length,
                         truncation_error=truncation_error, revision=revision,
                         cache_folder=cache_folder, token=token,
                         local_files_only=local_files_only)
        try:
            self.similarity_fn_name = (similarity_fn_name if similarity_fn_name is not None
                                       else self._folder_similarity())
            self.truncate_dim = truncate_dim
            self._folder_prompts = self._read_folder_prompts()
            # As upstream's __init__ and _load_sbert_model: "query" and "document" always
            # there, the caller's over them, the folder's where those are unset or empty.
            self.prompts = {"query": "", "document": "", **(prompts or {})}
            for name, text in self._folder_prompts.items():
                if not self.prompts.get(name):
                    self.prompts[name] = text
            self.default_prompt_name = default_prompt_name or self._folder_default_prompt()
            if self.default_prompt_name is not None and \
                    self.default_prompt_name not in self.prompts:
                raise ValueError(f"Default prompt name '{self.default_prompt_name}' not found in "
                                 f"the configured prompts dictionary with keys "
                                 f"{list(self.prompts.keys())!r}.")
        except BaseException:
            self.close()
            raise

    # ---- what the folder says ----------------------------------------------------------------

    def _read_folder_prompts(self):
        with self._borrow() as h:
            names = [lib.tf_pipeline_prompt_name(h, i).decode()
                     for i in range(lib.tf_pipeline_prompt_count(h))]
            return {n: lib.tf_pipeline_prompt(h, n.encode()).decode() for n in names}

    def _folder_default_prompt(self):
        with self._borrow() as h:
            name = lib.tf_pipeline_default_prompt_name(h)
        return name.decode() if name is not None else None

    def _folder_similarity(self):
        with self._borrow() as h:
            return lib.tf_pipeline_similarity(h).decode()

    @property
    def dim(self):
        """The width of the folder's vectors (its last module's), before truncate_dim."""
        with self._borrow() as h:
            return lib.tf_pipeline_dim(h)

    # ---- settings --------------------------------------------------------------------------

    @property
    def max_seq_length(self):
        """Tokens per text, special tokens included; longer texts are cut.
        Setting it loads the folder again with that limit (a loaded
        tf_pipeline cannot change it): 3 .. the model's positions."""
        return _Pipeline.max_seq_length.fget(self)

    @max_seq_length.setter
    def max_seq_length(self, value):
        self._reload(integer(value, "max_seq_length", 1))

    @property
    def similarity_fn_name(self):
        """"cosine", "dot", "euclidean" or "manhattan": what similarity() and
        similarity_pairwise() compute (the folder's, else cosine). Settable
        (None: cosine)."""
        return self._similarity_fn_name

    @similarity_fn_name.setter
    def similarity_fn_name(self, value):
        self._similarity_fn_name = "cosine" if value is None else \
            name_of(value, "similarity_fn_name", SIMILARITY_FUNCTIONS)

    @property
    def truncate_dim(self):
        """None, or the values kept of each vector (its first ones; a number
        above the width keeps them all, as upstream)."""
        return self._truncate_dim

    @truncate_dim.setter
    def truncate_dim(self, value):
        self._truncate_dim = None if value is None else integer(value, "truncate_dim", 1)

    @contextlib.contextmanager
    def truncate_sentence_embeddings(self, truncate_dim):
        """Within the block, encode() keeps truncate_dim values."""
        before, self.truncate_dim = self.truncate_dim, truncate_dim
        try:
            yield
        finally:
            self.truncate_dim = before

    def get_sentence_embedding_dimension(self):
        """The width of encode()'s vectors: the folder's, or truncate_dim below it."""
        return self.dim if self.truncate_dim is None else min(self.dim, self.truncate_dim)

    # ---- encode ----------------------------------------------------------------------------

    def _prompt_text(self, prompt_name, prompt):
        """The text before each sentence, as upstream's encode chooses it (None: none)."""
        if prompt is not None:
            if prompt_name is not None:
                _log.warning("Encode with either a `prompt`, a `prompt_name`, or neither, but not "
                             "both. Ignoring the `prompt_name` in favor of `prompt`.")
            return prompt
        if prompt_name is not None:
            if prompt_name not in self.prompts:
                raise ValueError(f"Prompt name '{prompt_name}' not found in the configured "
                                 f"prompts dictionary with keys {list(self.prompts.keys())!r}.")
            return self.prompts[prompt_name]
        if self.default_prompt_name is not None:
            return self.prompts.get(self.default_prompt_name)
        return None

    def _prompt_route(self, text):
        """(the folder's prompt_name for C, a prefix to write here) that put
        text before each sentence: the folder's own prompt by its name (its
        Pooling then leaves the prompt's tokens out where include_prompt
        says so), another text written before each sentence."""
        if not text:
            return b"", b""
        prefix = c_string(text, "prompt")
        for name, folder_text in self._folder_prompts.items():
            if folder_text.encode() == prefix:
                return name.encode(), b""
        if not _pooling_includes_prompt(os.fsdecode(self._path)):
            raise NotImplementedError(
                f"prompt {text!r}: this folder's Pooling leaves the prompt's tokens out "
                f"(include_prompt false), which libtfenc does for the folder's own prompts "
                f"({', '.join(self._folder_prompts) or 'none'}) only")
        return b"", prefix

    def encode(self, sentences, prompt_name=None, prompt=None, batch_size=32,
               show_progress_bar=None, output_value="sentence_embedding", precision="float32",
               convert_to_numpy=True, convert_to_tensor=False, device=None,
               normalize_embeddings=False, truncate_dim=None, task=None,
               dimensions_layer_norm=False):
        """Sentence embeddings as SentenceTransformer.encode gives them: a
        str gives one [D] vector, a list (tuple, array, generator) [n, D].
        prompt (a text) or prompt_name (a key of prompts; neither: the
        default_prompt_name's) goes before each sentence. truncate_dim (None:
        self.truncate_dim) keeps the first values, then normalize_embeddings
        scales each to unit length; precision "int8", "uint8", "binary" or
        "ubinary" quantizes the call's vectors together (quantize_embeddings,
        ranges from these vectors). convert_to_tensor: one torch tensor;
        convert_to_numpy False: a list of torch tensors. show_progress_bar
        None: a bar when stderr is a terminal. task is accepted as upstream
        (for Router modules, which a folder here has none of).
        dimensions_layer_norm (tfenc's): nomic-embed-text-v1.5's Matryoshka
        recipe: layer norm, the first truncate_dim (None: all), unit length."""
        cpu_only(device)
        if output_value == "token_embeddings":
            return self._token_embeddings(sentences, prompt_name, prompt, batch_size,
                                          convert_to_numpy, convert_to_tensor)
        if output_value != "sentence_embedding":
            if output_value is None:
                raise NotImplementedError(
                    "output_value=None: each sentence's dict of every output is not given "
                    "here; ask for 'sentence_embedding' or 'token_embeddings'")
            raise ValueError(f"output_value: expected 'sentence_embedding' or "
                             f"'token_embeddings', got {output_value!r}")
        precision = precision_of(precision)
        if self.kind == "image-embedding":
            return self._encode_images(sentences, batch_size, show_progress_bar, precision,
                                       convert_to_numpy, convert_to_tensor,
                                       normalize_embeddings, truncate_dim)
        texts, single = text_items(sentences, "sentences", c_string)
        prompt_name, prefix = self._prompt_route(self._prompt_text(prompt_name, prompt))
        texts = [prefix + t for t in texts] if prefix else texts
        keep = self.truncate_dim if truncate_dim is None else integer(truncate_dim,
                                                                      "truncate_dim", 1)
        layer_norm = flag(dimensions_layer_norm, "dimensions_layer_norm")
        normalize = flag(normalize_embeddings, "normalize_embeddings")
        width = self.dim if keep is None else min(keep, self.dim)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # longest first
        fields = {"prompt_name": prompt_name, "dimensions_layer_norm": layer_norm,
                  "dimensions": width if layer_norm else 0}
        def where(i):  # the caller's name of input i of the sorted ones
            return ("sentences" if single else f"sentences[{order[i]}]",) * 3
        sorted_vectors = self._run(lib.tf_pipeline_embed, [texts[i] for i in order], None,
                                   width if layer_norm else self.dim, batch_size,
                                   show_progress_bar, where, **fields)
        vectors = np.empty_like(sorted_vectors)  # [n, D]
        vectors[order] = sorted_vectors
        vectors = np.ascontiguousarray(vectors[:, :width])  # [n, width]
        if normalize:  # torch.nn.functional.normalize: over max(|v|, 1e-12)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        if precision != "float32" and len(vectors):
            vectors = quantize_embeddings(vectors, precision)
        return convert(vectors, single, convert_to_numpy, convert_to_tensor)

    def _encode_images(self, images, batch_size, show_progress_bar, precision, convert_to_numpy,
                       convert_to_tensor, normalize_embeddings, truncate_dim):
        """encode() of an image folder (sentence-transformers' CLIP, CLIP,
        SigLIP, ViT): images as images.py takes them, one vector each; with a
        text tower (a whole CLIP or SigLIP folder with its tokenizer) a str is
        a text, its text tower's vector, as sentence-transformers' CLIPModel
        reads a list of texts and images; truncate_dim, normalize_embeddings,
        precision and the conversions as for texts (prompts have no meaning
        for images)."""
        keep = self.truncate_dim if truncate_dim is None else integer(truncate_dim,
                                                                      "truncate_dim", 1)
        normalize = flag(normalize_embeddings, "normalize_embeddings")
        if self._has_text_tower() and _has_text(images):
            vectors, single = self._encode_texts_and_images(images, batch_size,
                                                            show_progress_bar)
        else:
            vectors, single = run_images(self, lib.tf_pipeline_embed_images, images, "sentences",
                                         self.dim, batch_size,
                                         show_progress_bar=show_progress_bar)
        vectors = np.ascontiguousarray(vectors[:, :min(keep or self.dim, self.dim)])
        if normalize:  # torch.nn.functional.normalize: over max(|v|, 1e-12)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        if precision != "float32" and len(vectors):
            vectors = quantize_embeddings(vectors, precision)
        return convert(vectors, single, convert_to_numpy, convert_to_tensor)

    def _has_text_tower(self):
        with self._borrow() as h:
            return bool(lib.tf_pipeline_tokenizer(h))

    def _encode_texts_and_images(self, inputs, batch_size, show_progress_bar):
        """([n, dim] float32, single): the texts of inputs (a str, or a list of str
        and images) through the text tower (tf_pipeline_embed), the images
        through the vision tower, in the caller's order."""
        single = isinstance(inputs, str)
        items = [inputs] if single else list(inputs)
        texts = [i for i, x in enumerate(items) if isinstance(x, str)]
        images = [i for i, x in enumerate(items) if not isinstance(x, str)]
        out = np.empty((len(items), self.dim), dtype=np.float32)  # [n, dim]

        def where(i):  # the caller's name of text i
            return ("sentences" if single else f"sentences[{texts[i]}]",) * 3
        out[texts] = self._run(lib.tf_pipeline_embed, [c_string(items[i], "sentences")
                                                       for i in texts], None, self.dim,
                               batch_size, show_progress_bar, where)
        if images:
            out[images], _ = run_images(self, lib.tf_pipeline_embed_images,
                                        [items[i] for i in images], "sentences", self.dim,
                                        batch_size, show_progress_bar=show_progress_bar)
        return out, single

    def _token_embeddings(self, sentences, prompt_name, prompt, batch_size, convert_to_numpy,
                          convert_to_tensor):
        """encode(output_value="token_embeddings"): each sentence's [tokens, D]
        last hidden state, its prompt's tokens, [CLS] and [SEP] included
        (tf_pipeline_embed_tokens), never normalised (as upstream); a list of
        numpy arrays (torch tensors when convert_to_tensor or not
        convert_to_numpy), one for a str."""
        texts, single = text_items(sentences, "sentences", c_string)
        prompt_name, prefix = self._prompt_route(self._prompt_text(prompt_name, prompt))
        texts = [prefix + t for t in texts] if prefix else texts

        def where(i):
            return ("sentences" if single else f"sentences[{i}]",) * 3
        out = token_vectors(self, texts, batch_size, normalize=0, prompt_name=prompt_name,
                            where=where)
        if convert_to_tensor or not convert_to_numpy:
            import torch
            out = [torch.from_numpy(m) for m in out]
        return out[0] if single else out

    def encode_query(self, sentences, prompt_name=None, prompt=None, **kwargs):
        """encode() with the "query" prompt when neither prompt nor
        prompt_name is given and prompts has one, as upstream."""
        if prompt_name is None and prompt is None and "query" in self.prompts:
            prompt_name = "query"
        return self.encode(sentences, prompt_name=prompt_name, prompt=prompt,
                           **{"task": "query", **kwargs})

    def encode_document(self, sentences, prompt_name=None, prompt=None, **kwargs):
        """encode() with the first of the "document", "passage" and
        "corpus" prompts that prompts has (upstream's order; "document" is
        always there, empty unless set), when neither prompt nor prompt_name
        is given."""
        if prompt_name is None and prompt is None:
            prompt_name = next((n for n in _DOCUMENT_PROMPTS if n in self.prompts), None)
        return self.encode(sentences, prompt_name=prompt_name, prompt=prompt,
                           **{"task": "document", **kwargs})

    # ---- similarity ------------------------------------------------------------------------

    def similarity(self, embeddings1, embeddings2):
        """[n, m]: similarity_fn_name's similarity of each of embeddings1
        ([n, D] or [D]) with each of embeddings2 (tfenc.similarity)."""
        return similarity(self.similarity_fn_name, embeddings1, embeddings2,
                          ("embeddings1", "embeddings2"))

    def similarity_pairwise(self, embeddings1, embeddings2):
        """[n]: similarity_fn_name's similarity of embeddings1[i] with embeddings2[i]."""
        return similarity_pairwise(self.similarity_fn_name, embeddings1, embeddings2,
                                   ("embeddings1", "embeddings2"))
