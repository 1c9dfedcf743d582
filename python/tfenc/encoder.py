"""tfenc.Encoder: a libtfenc encoder handle with numpy arrays in and out."""
import ctypes

import numpy as np

from . import _lib
from ._args import UINT64_MAX, c_path, c_string, flag, integer, text_items, utf8
from ._handle import Handle, Owner
from ._lib import P, check, enum_name, enum_value, lib

# The names that activation=, position= and pooling= take: the library's.
ACTIVATIONS, POSITIONS, POOLINGS = (_lib.NAMES[kind] for kind in ("activation", "position",
                                                                  "pooling"))
_F32, _I32 = P(ctypes.c_float), P(ctypes.c_int32)


class EncoderOutput:
    """What a forward call returns, named as Hugging Face names it."""

    __slots__ = ("last_hidden_state", "hidden_states", "attentions", "pooler_output", "trace")

    def __init__(self, last_hidden_state, hidden_states=None, attentions=None,
                 pooler_output=None, trace=None):
        self.last_hidden_state = last_hidden_state  # [B, T, D]
        self.hidden_states = hidden_states  # L+1 arrays [B, T, D], embeddings first, or None
        self.attentions = attentions  # L arrays [B, H, T, T], or None
        self.pooler_output = pooler_output  # [B, D], or None
        self.trace = trace  # {name: array} of every intermediate, or None

    def __repr__(self):
        return f"EncoderOutput(last_hidden_state={self.last_hidden_state.shape})"


def _c_array(a, dtype, name, rank):
    """a as a C-contiguous array of dtype (the same object when it already
    is one), after checking its rank and, for ints, that it fits int32."""
    a = np.asarray(a)
    if a.ndim != rank:
        dims = {2: "[batch, seq_len]", 3: "[batch, seq_len, d_model]"}.get(rank, f"rank {rank}")
        raise ValueError(f"{name}: expected a {rank}-D array {dims}, got shape {a.shape}")
    if dtype == np.int32:
        if a.dtype.kind not in "iub":
            raise TypeError(f"{name}: expected integers, got dtype {a.dtype}")
        if a.dtype != np.int32 and a.size and (a.min() < -2**31 or a.max() >= 2**31):
            raise ValueError(f"{name}: values do not fit in int32")
    elif a.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected floating-point numbers, got dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=dtype)


def _mask_array(m, name):
    """A 0/1 mask of any numeric or bool dtype as int32 [B, T]."""
    m = np.asarray(m)
    if m.dtype.kind == "f":
        if not np.isin(m, (0.0, 1.0)).all():
            raise ValueError(f"{name}: expected only 0 and 1")
        m = m.astype(np.int32)
    return _c_array(m, np.int32, name, 2)


def _ptr(a, ctype):
    return None if a is None else a.ctypes.data_as(ctype)


def _owned(ptr):
    return Handle(ptr, lib.tf_encoder_destroy, "Encoder")


def _n_threads(n):
    """n_threads= of a forward call: 0 = one thread per online core."""
    return integer(n, "n_threads", 0)


def _norm_placement(norm_first):
    """PyTorch's norm_first as a tf_norm_placement."""
    return enum_value("norm_placement", "pre" if flag(norm_first, "norm_first") else "post",
                      "norm_first")


# The fields 0.4.0 added, by kind (the constructor's keywords of the same names).
_FLAGS_0_4 = ("ffn_gated", "norm_bias", "skip_first_norm1", "rotary_interleaved", "qk_norm",
              "add_norm1b")
_INTEGERS_0_4 = ("rotary_dim", "rotary_ntk_positions", "attn_window", "global_every",
                 "relative_buckets", "relative_max_distance", "embedding_dim")
_FLOATS_0_4 = ("rotary_base", "rotary_base_local", "rotary_ntk_factor", "rotary_linear_factor")


class Encoder(Owner):
    """A Transformer encoder (libtfenc). Encoder(...) creates one with
    deterministic PyTorch-like random weights; Encoder.from_file(path)
    loads a checkpoint. enc(input_ids, attention_mask=...) runs it, from
    any number of threads at once; close() (or a `with` block) frees it
    once the running calls have returned."""

    def __init__(self, d_model=512, n_heads=8, d_ff=2048, n_layers=1, vocab_size=0, *,
                 max_positions=0, position="sinusoidal", n_token_types=0, embedding_norm=False,
                 norm_first=False, final_norm=False, activation="gelu", layer_norm_eps=1e-5,
                 bias=True, pooler=False, seed=0, position_offset=0, ffn_gated=False,
                 norm_bias=False, skip_first_norm1=False, rotary_dim=0, rotary_interleaved=False,
                 rotary_base=0.0, rotary_base_local=0.0, rotary_ntk_factor=0.0,
                 rotary_ntk_positions=0, attn_window=0, global_every=0,
                 rotary_linear_factor=0.0, relative_buckets=0, relative_max_distance=0,
                 embedding_dim=0, qk_norm=False, add_norm1b=False):
        c = _lib.new(_lib.Config)
        for name, value in (("d_model", d_model), ("n_heads", n_heads), ("d_ff", d_ff),
                            ("n_layers", n_layers), ("vocab_size", vocab_size),
                            ("max_positions", max_positions), ("n_token_types", n_token_types),
                            ("position_offset", position_offset),
                            ("rotary_dim", rotary_dim),
                            ("rotary_ntk_positions", rotary_ntk_positions),
                            ("attn_window", attn_window), ("global_every", global_every),
                            ("relative_buckets", relative_buckets),
                            ("relative_max_distance", relative_max_distance),
                            ("embedding_dim", embedding_dim)):
            setattr(c, name, integer(value, name))
        for name, value in (("embedding_norm", embedding_norm), ("final_norm", final_norm),
                            ("bias", bias), ("pooler", pooler), ("ffn_gated", ffn_gated),
                            ("norm_bias", norm_bias), ("skip_first_norm1", skip_first_norm1),
                            ("rotary_interleaved", rotary_interleaved), ("qk_norm", qk_norm),
                            ("add_norm1b", add_norm1b)):
            setattr(c, name, flag(value, name))
        c.rotary_base, c.rotary_base_local = rotary_base, rotary_base_local
        c.rotary_ntk_factor, c.rotary_linear_factor = rotary_ntk_factor, rotary_linear_factor
        c.position = enum_value("position", position, "position")
        c.activation = enum_value("activation", activation, "activation")
        c.norm_placement = _norm_placement(norm_first)
        c.layer_norm_eps, c.seed = layer_norm_eps, integer(seed, "seed", 0, UINT64_MAX)
        handle = ctypes.c_void_p()
        check(lib.tf_encoder_create(ctypes.byref(c), ctypes.byref(handle)))
        self._handle = _owned(handle)

    @classmethod
    def from_file(cls, path, *, n_heads=None, activation=None, norm_first=None,
                  layer_norm_eps=None):
        """Loads a Hugging Face BERT directory or .safetensors file, a PyTorch
        nn.TransformerEncoder state_dict in safetensors, or a file written by
        save(). The keyword arguments supply what the file cannot tell."""
        opts = _lib.new(_lib.LoadOptions)
        if n_heads is not None:
            opts.n_heads = integer(n_heads, "n_heads")
        if activation is not None:
            opts.activation = enum_value("activation", activation, "activation")
        if norm_first is not None:
            opts.norm_placement = _norm_placement(norm_first)
        if layer_norm_eps is not None:
            opts.layer_norm_eps = layer_norm_eps
        handle = ctypes.c_void_p()
        check(lib.tf_encoder_load(c_path(path), ctypes.byref(opts), ctypes.byref(handle)))
        enc = cls.__new__(cls)
        enc._handle = _owned(handle)
        return enc

    @property
    def config(self):
        """The configuration as a dict, with the names the constructor takes."""
        c = _lib.new(_lib.Config)
        with self._handle.borrow() as h:
            check(lib.tf_encoder_get_config(h, ctypes.byref(c)))
        return {"d_model": c.d_model, "n_heads": c.n_heads, "d_ff": c.d_ff,
                "n_layers": c.n_layers, "vocab_size": c.vocab_size,
                "max_positions": c.max_positions, "position": enum_name("position", c.position),
                "n_token_types": c.n_token_types, "embedding_norm": bool(c.embedding_norm),
                "norm_first": enum_name("norm_placement", c.norm_placement) == "pre",
                "final_norm": bool(c.final_norm),
                "activation": enum_name("activation", c.activation),
                "layer_norm_eps": float(str(np.float32(c.layer_norm_eps))),  # shortest form
                "bias": bool(c.bias), "pooler": bool(c.pooler), "seed": c.seed,
                "position_offset": c.position_offset,
                **{name: bool(getattr(c, name)) for name in _FLAGS_0_4},
                **{name: getattr(c, name) for name in _INTEGERS_0_4},
                **{name: float(str(np.float32(getattr(c, name)))) for name in _FLOATS_0_4}}

    def save(self, path):
        """Writes a safetensors file that from_file() reads back bitwise."""
        with self._handle.borrow() as h:
            check(lib.tf_encoder_save(h, c_path(path)))

    # ---- tensors by name ----------------------------------------------------

    def keys(self):
        """The names of the model's tensors, in storage order."""
        with self._handle.borrow() as h:
            return [lib.tf_encoder_tensor_name(h, i).decode()
                    for i in range(lib.tf_encoder_tensor_count(h))]

    def __contains__(self, name):
        return name in self.keys()

    def _shape(self, name):
        rank, dims = ctypes.c_int32(), (ctypes.c_int64 * _lib.MAX_RANK)()
        with self._handle.borrow() as h:
            check(lib.tf_encoder_tensor_shape(h, c_string(name, "name"), ctypes.byref(rank), dims))
        return tuple(dims[:rank.value])

    def __getitem__(self, name):
        """A copy of the tensor `name` (float32)."""
        shape = self._shape(name)
        out = np.empty(shape, np.float32)
        dims = (ctypes.c_int64 * len(shape))(*shape)
        with self._handle.borrow() as h:
            check(lib.tf_encoder_get_tensor(h, c_string(name, "name"), _ptr(out, _F32),
                                            len(shape), dims))
        return out

    def __setitem__(self, name, value):
        """Replaces the tensor `name`; the shape must be the tensor's."""
        a = np.ascontiguousarray(value, dtype=np.float32)
        dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        with self._handle.borrow() as h:
            check(lib.tf_encoder_set_tensor(h, c_string(name, "name"), _ptr(a, _F32), a.ndim, dims))

    # ---- forward --------------------------------------------------------------

    def __call__(self, input_ids=None, attention_mask=None, token_type_ids=None,
                 output_hidden_states=False, output_attentions=False, *, input_embeds=None,
                 key_padding_mask=None, causal=False, additive_mask=None, trace=False,
                 n_threads=0):
        """Runs the encoder.

        Models with a vocabulary, Hugging Face's conventions: input_ids
        [B, T], attention_mask [B, T] (1 = real token, right padding),
        token_type_ids [B, T]. Models taking vectors: input_embeds [B, T, D]
        (tf_forward_args'), and PyTorch's key_padding_mask bool [B, T] (True =
        padding) or attention_mask. Either may add
        causal=True and additive_mask [T, T] or [B, T, T] (added to the
        scores; -inf blocks). trace=True also returns every intermediate
        tensor by name in out.trace. Padded positions of the outputs are 0.
        n_threads: the threads this call may use (0, the default: one per
        online core; 1: only the calling thread).
        """
        if (input_ids is None) == (input_embeds is None):
            raise ValueError("pass exactly one of input_ids and input_embeds")
        if attention_mask is not None and key_padding_mask is not None:
            raise ValueError("pass attention_mask or key_padding_mask, not both")
        output_hidden_states = flag(output_hidden_states, "output_hidden_states")
        output_attentions = flag(output_attentions, "output_attentions")
        trace = flag(trace, "trace")
        cfg = self.config
        a = _lib.new(_lib.ForwardArgs)
        a.causal, a.n_threads = flag(causal, "causal"), _n_threads(n_threads)
        keep = []  # arrays that must live until the call returns
        if input_ids is not None:
            ids = _c_array(input_ids, np.int32, "input_ids", 2)
            B, T = ids.shape
            a.input_ids = _ptr(ids, _I32)
            keep.append(ids)
        else:
            embeds = _c_array(input_embeds, np.float32, "input_embeds", 3)
            B, T, D = embeds.shape
            if D != cfg["d_model"]:
                raise ValueError(f"input_embeds: expected [batch, seq_len, {cfg['d_model']}], got "
                                 f"{embeds.shape}")
            a.input_embeds = _ptr(embeds, _F32)
            keep.append(embeds)
        mask = None
        if attention_mask is not None:
            mask = _mask_array(attention_mask, "attention_mask")
        elif key_padding_mask is not None:
            kpm = np.asarray(key_padding_mask)
            if kpm.dtype != np.bool_:
                raise TypeError(f"key_padding_mask: expected bool (True = padding), got dtype "
                                f"{kpm.dtype}")
            mask = _c_array(~kpm, np.int32, "key_padding_mask", 2)
        for name, m in (("attention_mask", mask), ("token_type_ids", token_type_ids)):
            if m is not None and np.shape(m) != (B, T):
                raise ValueError(f"{name}: expected shape {(B, T)}, got {np.shape(m)}")
        if mask is not None:
            a.attention_mask = _ptr(mask, _I32)
            keep.append(mask)
        if token_type_ids is not None:
            types = _c_array(token_type_ids, np.int32, "token_type_ids", 2)
            a.token_type_ids = _ptr(types, _I32)
            keep.append(types)
        if additive_mask is not None:
            add = np.ascontiguousarray(additive_mask, dtype=np.float32)
            if add.shape not in ((T, T), (B, T, T)):
                raise ValueError(f"additive_mask: expected {(T, T)} or {(B, T, T)}, got "
                                 f"{add.shape}")
            a.additive_mask, a.additive_mask_batched = _ptr(add, _F32), int(add.ndim == 3)
            keep.append(add)
        a.batch, a.seq_len = B, T

        D, L, H = cfg["d_model"], cfg["n_layers"], cfg["n_heads"]
        out = np.empty((B, T, D), np.float32)
        hidden = np.empty((L + 1, B, T, D), np.float32) if output_hidden_states else None
        attn = np.empty((L, B, H, T, T), np.float32) if output_attentions else None
        pooled = np.empty((B, D), np.float32) if cfg["pooler"] else None
        a.output, a.hidden_states = _ptr(out, _F32), _ptr(hidden, _F32)
        a.attentions, a.pooled_output = _ptr(attn, _F32), _ptr(pooled, _F32)
        traced = {} if trace else None
        if trace:
            def record(event, _user):
                e = event.contents
                shape = tuple(e.dims[:e.rank])
                traced[e.name.decode()] = np.ctypeslib.as_array(
                    e.data, shape=(int(np.prod(shape)),)).reshape(shape).copy()
            a.trace = _lib.TRACE_FN(record)
            keep.append(a.trace)
        with self._handle.borrow() as h:
            check(lib.tf_encoder_forward(h, ctypes.byref(a)))
        return EncoderOutput(out, None if hidden is None else tuple(hidden),
                             None if attn is None else tuple(attn), pooled, traced)

    # ---- sentence vectors ---------------------------------------------------------

    def embed(self, texts, tokenizer, *, pooling="mean", normalize=False, batch_size=32,
              n_threads=0):
        """One vector per text ([len(texts), d_model] float32): tokenized by
        `tokenizer`, run through the encoder in padded batches of at most
        batch_size (>= 1) texts, then pooled as tf_pool does (pooling: one of
        POOLINGS, e.g. "cls" the [CLS] vector, "mean" the mean over the real
        tokens), L2-normalised when asked. n_threads as for a forward call."""
        pooling = enum_value("pooling", pooling, "pooling")
        normalize = flag(normalize, "normalize")
        batch_size = integer(batch_size, "batch_size", 1)
        n_threads = _n_threads(n_threads)
        texts = text_items(texts, "texts", utf8)[0]  # the tokenizer takes the bytes
        D = self.config["d_model"]
        vectors = np.empty((len(texts), D), np.float32)
        for start in range(0, len(texts), batch_size):
            batch = tokenizer(texts[start:start + batch_size])
            ids = batch["input_ids"]
            hidden = self(ids, attention_mask=batch["attention_mask"],
                          token_type_ids=batch["token_type_ids"]
                          if self.config["n_token_types"] else None,
                          n_threads=n_threads).last_hidden_state
            lengths = np.ascontiguousarray(batch["attention_mask"].sum(1), dtype=np.int32)
            out = vectors[start:start + len(ids)]
            check(lib.tf_pool(_ptr(hidden, _F32), _ptr(lengths, _I32), ids.shape[0], ids.shape[1],
                              D, pooling, normalize, _ptr(out, _F32)))
        return vectors
