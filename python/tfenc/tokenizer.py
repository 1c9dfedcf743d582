"""tfenc.Tokenizer: a tokenizer.json (Hugging Face tokenizers' pipeline:
WordPiece, BPE, Unigram) or BERT's vocab.txt, tokenized by libtfenc."""
import ctypes

import numpy as np

from . import _lib
from ._args import c_path, c_string, flag, integer, items, text_pair_items, utf8
from ._handle import Handle, Owner
from ._lib import check, lib


def _rows(batch, mask, padded):
    """Each row of batch [B, T, ...] as an array: whole when padded, else
    its real tokens only (mask [B, T], 1 = real, on either side)."""
    return [row if padded else row[m == 1] for row, m in zip(batch, mask)]


def _rows_as_lists(batch, mask, padded, single):
    """batch as transformers' return_tensors=None gives it: a list per row
    (offsets as tuples), the row itself for a single text."""
    rows = [[tuple(x) if batch.ndim == 3 else x for x in row.tolist()]
            for row in _rows(batch, mask, padded)]
    return rows[0] if single else rows


def _unpadded_arrays(batch, mask):
    """Unpadded rows as transformers' "np" gives them: [B, T] when every
    row has T real tokens, else a [B] object array of each row's."""
    rows = _rows(batch, mask, False)
    if len({len(row) for row in rows}) == 1:
        return np.stack(rows)
    out = np.empty(len(rows), dtype=object)
    for b, row in enumerate(rows):
        out[b] = row
    return out


class Tokenizer(Owner):
    """Tokenizer(path, lowercase=True): the tokenizer a tokenizer.json
    describes, a model directory's (its tokenizer.json, else its vocab.txt),
    or BERT's uncased (or, with lowercase=False, cased) WordPiece tokenizer
    over a vocab.txt. lowercase, strip_accents, split_cjk and
    max_chars_per_word apply to a vocab.txt only; max_length (0: the file's
    own truncation) to both. A directory's tokenizer_config.json and
    special_tokens_map.json add their special and added tokens as
    transformers does, and for a vocab.txt set the casing where these
    arguments keep their defaults (see tf_tokenizer_load in tfenc.h). Use
    it from any number of threads at once;
    close() (or a `with` block) frees it once the running calls have
    returned."""

    def __init__(self, path, lowercase=True, *, strip_accents=None, split_cjk=True,
                 max_chars_per_word=100, max_length=0):
        o = _lib.new(_lib.TokenizerOptions)
        o.lowercase, o.split_cjk = flag(lowercase, "lowercase"), flag(split_cjk, "split_cjk")
        if strip_accents is not None:  # else the library's default: as lowercase
            o.strip_accents = flag(strip_accents, "strip_accents")
        o.max_chars_per_word = integer(max_chars_per_word, "max_chars_per_word")
        o.max_length = integer(max_length, "max_length")
        handle = ctypes.c_void_p()
        check(lib.tf_tokenizer_load(c_path(path), ctypes.byref(o),
                                    ctypes.byref(handle)))
        self._handle = Handle(handle, lib.tf_tokenizer_destroy, "Tokenizer")

    @property
    def vocab_size(self):
        with self._handle.borrow() as h:
            return lib.tf_tokenizer_vocab_size(h)

    def id_to_token(self, i):
        i = integer(i, "id")
        with self._handle.borrow() as h:
            t = lib.tf_tokenizer_id_to_token(h, i)
        if t is None:
            raise IndexError(f"id {i} is outside the vocabulary ({self.vocab_size})")
        return t.decode()

    def token_to_id(self, token):
        """The id of token, or None."""
        with self._handle.borrow() as h:
            i = lib.tf_tokenizer_token_to_id(h, c_string(token, "token"))
        return None if i < 0 else i

    @classmethod
    def from_file(cls, path, **kwargs):
        """The tokenizer of a tokenizer.json, a model folder or a vocab.txt
        (as Tokenizer(path, ...)), named as Hugging Face's tokenizers names it."""
        return cls(path, **kwargs)

    @property
    def model_max_length(self):
        """What truncation without max_length cuts to (a folder's
        tokenizer_config.json, else the file's truncation); 0 when none says."""
        with self._handle.borrow() as h:
            return lib.tf_tokenizer_model_max_length(h)

    _TRUNCATION = {None: 0, False: 1, "do_not_truncate": 1, True: 2, "longest_first": 2,
                   "only_first": 3, "only_second": 4}

    def _options(self, truncation, max_length, padding, pad_to_multiple_of, padding_side,
                 stride=0, return_overflowing_tokens=False):
        """The tf_encode_options of a call, each argument checked by name."""
        o = _lib.new(_lib.EncodeOptions)
        if not isinstance(truncation, (bool, str, type(None))) or \
                truncation not in self._TRUNCATION:
            raise ValueError("truncation: expected None, True, False, 'longest_first', "
                             "'only_first', 'only_second' or 'do_not_truncate', got "
                             f"{truncation!r}")
        o.truncation = self._TRUNCATION[truncation]
        if max_length is not None:  # else the library's 0: model_max_length
            o.max_length = integer(max_length, "max_length", 1)
        if not isinstance(padding, (bool, str)) or \
                padding not in (True, False, "longest", "max_length", "do_not_pad"):
            raise ValueError("padding: expected True, False, 'longest', 'max_length' or "
                             f"'do_not_pad', got {padding!r}")
        o.pad_to_max_length = padding == "max_length"
        if pad_to_multiple_of is not None:  # else the library's 0: the tokenizer's own
            o.pad_to_multiple_of = integer(pad_to_multiple_of, "pad_to_multiple_of", 1)
        if padding_side not in (None, "left", "right"):
            raise ValueError(f"padding_side: expected 'left' or 'right', got {padding_side!r}")
        o.pad_left = {None: 0, "left": 1, "right": -1}[padding_side]
        o.stride = integer(stride, "stride")
        o.return_overflowing = flag(return_overflowing_tokens, "return_overflowing_tokens")
        return o

    def _encode(self, data, pdata=None, options=None):
        """The C encoding of a batch of UTF-8 texts (bytes; pdata None or as
        many pairs): (ids, type ids, mask, byte offsets, lengths, code point
        offsets, each row's input)."""
        if not data:
            raise ValueError("texts: expected at least one text")
        n = len(data)
        arr = (ctypes.c_char_p * n)(*data)
        lens = (ctypes.c_size_t * n)(*(len(d) for d in data))
        parr = plens = None
        if pdata is not None:
            parr = (ctypes.c_char_p * n)(*pdata)
            plens = (ctypes.c_size_t * n)(*(len(d) for d in pdata))
        enc = ctypes.c_void_p()
        opts = None if options is None else ctypes.byref(options)
        with self._handle.borrow() as h:
            check(lib.tf_tokenizer_encode_batch_with(h, n, arr, lens, parr, plens, opts,
                                                     ctypes.byref(enc)))
        try:
            B, T = lib.tf_encoding_batch(enc), lib.tf_encoding_seq_len(enc)

            def grab(ptr, shape):
                return np.ctypeslib.as_array(ptr, shape=shape).copy()
            return (grab(lib.tf_encoding_ids(enc), (B, T)),
                    grab(lib.tf_encoding_type_ids(enc), (B, T)),
                    grab(lib.tf_encoding_attention_mask(enc), (B, T)),
                    grab(lib.tf_encoding_offsets(enc), (B, T, 2)),
                    grab(lib.tf_encoding_lengths(enc), (B,)),
                    grab(lib.tf_encoding_char_offsets(enc), (B, T, 2)),
                    grab(lib.tf_encoding_overflow_to_sample(enc), (B,)))
        finally:
            lib.tf_encoding_destroy(enc)

    def encode(self, text, pair=None, *, return_offsets=False):
        """The ids of text (and pair) with the special tokens the tokenizer
        adds ([CLS] text [SEP] (pair [SEP]) for BERT); with return_offsets,
        also each token's (begin, end) byte offsets in its text ((0, 0) for
        the added special tokens)."""
        return_offsets = flag(return_offsets, "return_offsets")
        pdata = None if pair is None else [utf8(pair, "pair")]
        ids, _, mask, offsets, _, _, _ = self._encode([utf8(text, "text")], pdata)
        real = mask[0] == 1  # the tokenizer.json's padding may be on either side
        if return_offsets:
            return ids[0, real].tolist(), [tuple(o) for o in offsets[0, real].tolist()]
        return ids[0, real].tolist()

    def tokenize(self, text):
        """The tokens of text as strings, without the special tokens the
        tokenizer adds ([CLS] and [SEP]): those are the ones at (0, 0), as
        every token of the text spans some of its bytes."""
        ids, offsets = self.encode(text, return_offsets=True)
        return [self.id_to_token(i) for i, span in zip(ids, offsets) if span != (0, 0)]

    def __call__(self, texts, pairs=None, *, text_pair=None, truncation=None, max_length=None,
                 padding=True, pad_to_multiple_of=None, padding_side=None,
                 return_offsets_mapping=False, return_tensors="np", stride=0,
                 return_overflowing_tokens=False):
        """A batch, called as Hugging Face's fast tokenizers are:
        {"input_ids", "attention_mask", "token_type_ids"}, and with
        return_offsets_mapping "offset_mapping": each token's (start, end) in
        code points of its text or pair ((0, 0) for special tokens and
        padding). texts: a str (or bytes) or a list (tuple, ...) of them;
        text_pair (or pairs) of the same form: a str with a str, a list with
        a list of as many. truncation: None (the tokenizer's own), False,
        True / "longest_first", "only_first", "only_second", cutting to
        max_length (>= 1; None: the tokenizer's model_max_length). padding:
        True / "longest" pads to the longest row, "max_length" to max_length,
        False / "do_not_pad" leaves each row its own length (the
        tokenizer.json's own padding too, as transformers disables it);
        pad_to_multiple_of (>= 1) rounds padded rows up; padding_side "left"
        or "right".
        return_tensors "np" (the default here, where transformers' is None:
        Encoder.__call__ takes these): int32 arrays [B, T] (offset_mapping
        int64 [B, T, 2]); unpadded rows of different lengths are, as
        transformers gives them, a [B] object array of each row's array.
        return_tensors None: Python lists, a list per row (unpadded rows
        have their own lengths; offsets as (start, end) tuples), or for a
        str the one row's list itself. return_overflowing_tokens: the
        tokens truncation cuts off come back as more rows (a str's too),
        windows overlapping by stride tokens (0: none; with truncation None
        the tokenizer.json's truncation.stride), and
        "overflow_to_sample_mapping" [rows] int32 gives each row's text, as
        transformers' fast tokenizers give them."""
        pairs_name = "pairs"
        if text_pair is not None:
            if pairs is not None:
                raise TypeError("pairs and text_pair: give one of them")
            pairs, pairs_name = text_pair, "text_pair"
        if return_tensors not in (None, "np"):
            raise ValueError(f"return_tensors: expected None or 'np', got {return_tensors!r}")
        data, pdata, single = text_pair_items(texts, pairs, ("texts", pairs_name), utf8)
        options = self._options(truncation, max_length, padding, pad_to_multiple_of,
                                padding_side, stride, return_overflowing_tokens)
        ids, types, mask, _, _, chars, sample = self._encode(data, pdata, options)
        out = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        if flag(return_offsets_mapping, "return_offsets_mapping"):
            out["offset_mapping"] = chars
        padded = padding not in (False, "do_not_pad")
        one_row = single and not options.return_overflowing
        if return_tensors is None:
            out = {k: _rows_as_lists(v, mask, padded, one_row) for k, v in out.items()}
        elif not padded:
            out = {k: _unpadded_arrays(v, mask) for k, v in out.items()}
        if options.return_overflowing:
            out["overflow_to_sample_mapping"] = sample.tolist() if return_tensors is None \
                else sample
        return out

    def decode(self, ids, skip_special_tokens=False):
        """The text of ids as the tokenizer's decoder makes it (Hugging Face
        tokenizers' decode; an id that is no token raises)."""
        ids = [integer(i, f"ids[{k}]") for k, i in enumerate(items(ids, "ids",
                                                                   "a list of token ids"))]
        arr = (ctypes.c_int32 * max(len(ids), 1))(*ids)
        n = ctypes.c_size_t()
        skip = flag(skip_special_tokens, "skip_special_tokens")
        with self._handle.borrow() as h:
            check(lib.tf_tokenizer_decode(h, arr, len(ids), skip, None, 0, ctypes.byref(n)))
            buf = ctypes.create_string_buffer(n.value + 1)
            check(lib.tf_tokenizer_decode(h, arr, len(ids), skip, buf, n.value + 1,
                                          ctypes.byref(n)))
        return buf.raw[:n.value].decode("utf-8", errors="replace")
