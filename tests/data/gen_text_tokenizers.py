#!/usr/bin/python3
"""gen_text_tokenizers.py — the tokenizer folders of CLIP's and SigLIP's text
towers without a tokenizer.json (tests/test_text_tokenizers.c reads them), and
the ids their reference tokenizers give:

    /usr/bin/python3 tests/data/gen_text_tokenizers.py tests/data/tokenizer_folders \
        [fuzz/corpus/spiece]

writes OUT/clip/ (vocab.json, merges.txt, tokenizer_config.json naming
CLIPTokenizer, as sentence-transformers' clip-ViT-B-32 0_CLIPModel/ has them),
OUT/siglip/ (spiece.model, tokenizer_config.json naming SiglipTokenizer, as
google/siglip-base-patch16-224 has them) and OUT/text_tokenizers.json; and,
given a second folder, fuzz_spiece.c's corpus there. Then
tests/data/gen_clip_fast.mjs adds CLIPTokenizerFast's ids by tokenizers.js
("clip_fast": texts where this Python reference would differ from it).

CLIP: a small vocabulary built as OpenAI's simple_tokenizer.py builds CLIP's
(the 256 byte characters, the same with "</w>", one token per merge, then
<|startoftext|> and <|endoftext|>), its merges learnt here by counting pairs
(deterministic). The reference is transformers' CLIPTokenizer
(models/clip/tokenization_clip.py) without ftfy, written out below: its
BasicTokenizer(strip_accents=False, do_split_on_punc=False) path
(_clean_text, NFC, whitespace split, lower), the regex of __init__, bpe()
and _tokenize, the specials split off first, <|startoftext|> X <|endoftext|>.
Texts where CLIPTokenizerFast (the tokenizer libtfenc builds) is known to
differ from it (CJK characters, which BasicTokenizer spaces; control
characters, which it drops) are not among them.

SigLIP: a Unigram model trained by SentencePiece itself (Debian's
python3-sentencepiece, nmt_nfkc, <pad> </s> <unk> as ids 0 1 2 like
SigLIP's). The reference is transformers' SiglipTokenizer
(models/siglip/tokenization_siglip.py) written out below over
SentencePiece's encoder: tokenize (the "\u2581" prefix, lowercasing),
_tokenize (canonicalize_text, SentencePiece on "<unk>" + text with
add_dummy_prefix false, the pieces of "<unk>" dropped), piece_to_id, "</s>"
appended; SiglipProcessor pads to max_length 64 with the pad token "</s>".
"""
import io
import json
import os
import random
import re
import string
import sys
import unicodedata

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as model_pb2

SPACE = "\u2581"

WORDS = ("a photo of the cat dog bird car house tree red blue green small big running "
         "playing people street city night day with in on and is are two three man woman "
         "child children park beach water sky sunset mountain picture image drawing "
         "painting black white yellow café naïve über straße résumé").split()


def corpus(n, seed):
    r = random.Random(seed)
    lines = []
    for _ in range(n):
        words = [r.choice(WORDS) for _ in range(r.randint(3, 12))]
        if r.random() < 0.3:
            words[0] = words[0].capitalize()
        line = " ".join(words)
        if r.random() < 0.4:
            line += r.choice(".,!?")
        if r.random() < 0.2:
            line += " " + str(r.randint(0, 2024))
        lines.append(line)
    return lines


# ---- CLIP -----------------------------------------------------------------------------

def bytes_to_unicode():
    """tokenization_clip.py: bytes_to_unicode."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) +
          list(range(ord("\u00ae"), ord("\u00ff") + 1)))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_ENCODER = bytes_to_unicode()
CLIP_PATTERN = re.compile(r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|"""
                          r"""[^\W\d_]+|\d|(?:[^\s\w]|_)+""", re.IGNORECASE)


def clip_pieces(text):
    """re.findall of CLIPTokenizer's pattern, which uses the regex module's
    \\p{L} and \\p{N}; written for Python's re, whose [^\\W\\d_] is letters
    and \\d digits for the texts here (no letter-like numbers)."""
    return CLIP_PATTERN.findall(text)


def learn_merges(lines, count):
    """count merges, each the most frequent adjacent pair (ties: the smallest
    pair), over the words of lines as CLIPTokenizer splits them."""
    words = {}
    for line in lines:
        for piece in clip_pieces(" ".join(line.lower().split())):
            chars = "".join(BYTE_ENCODER[b] for b in piece.encode("utf-8"))
            word = tuple(chars[:-1]) + (chars[-1] + "</w>",)
            words[word] = words.get(word, 0) + 1
    merges = []
    for _ in range(count):
        pairs = {}
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return merges


class ClipReference:
    """transformers' CLIPTokenizer without ftfy (tokenization_clip.py)."""

    def __init__(self, vocab, merges):
        self.encoder = vocab
        self.bpe_ranks = {m: i for i, m in enumerate(merges)}

    def bpe(self, token):
        """CLIPTokenizer.bpe."""
        word = tuple(token[:-1]) + (token[-1] + "</w>",)
        pairs = set(zip(word, word[1:]))
        if not pairs:
            return token + "</w>"
        while True:
            bigram = min(pairs, key=lambda pair: self.bpe_ranks.get(pair, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            new_word, i = [], 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                except ValueError:
                    new_word.extend(word[i:])
                    break
                new_word.extend(word[i:j])
                i = j
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    new_word.append(first + second)
                    i += 2
                else:
                    new_word.append(word[i])
                    i += 1
            word = tuple(new_word)
            if len(word) == 1:
                break
            pairs = set(zip(word, word[1:]))
        return " ".join(word)

    @staticmethod
    def basic_tokenize(text):
        """BasicTokenizer(strip_accents=False, do_split_on_punc=False).tokenize
        for texts without CJK or control characters: whitespace as " ", NFC,
        split at whitespace, each lowercased."""
        text = "".join(" " if c in " \t\n\r" or unicodedata.category(c) == "Zs" else c
                       for c in text if ord(c) not in (0, 0xFFFD))
        return [t.lower() for t in unicodedata.normalize("NFC", text).split()]

    def tokenize(self, text):
        """CLIPTokenizer._tokenize."""
        text = " ".join(self.basic_tokenize(text))
        out = []
        for token in clip_pieces(text):
            token = "".join(BYTE_ENCODER[b] for b in token.encode("utf-8"))
            out.extend(self.bpe(token).split(" "))
        return out

    def encode(self, text, specials):
        """<|startoftext|> X <|endoftext|>, the specials in the text split off
        first (PreTrainedTokenizer.tokenize; lstrip and rstrip false)."""
        ids = [self.encoder["<|startoftext|>"]]
        for part in re.split("(" + "|".join(map(re.escape, specials)) + ")", text):
            if part in specials:
                ids.append(self.encoder[part])
            elif part:
                ids.extend(self.encoder[t] for t in self.tokenize(part))
        return ids + [self.encoder["<|endoftext|>"]]


CLIP_TEXTS = [
    "a photo of a cat",
    "A Photo Of Two Dogs playing in the park.",
    "",
    "   ",
    "  leading   and trailing spaces  ",
    "tabs\tand\nnewlines\r\nhere",
    "don't, it's: they're we'll I'M you've I'd",
    "numbers 2024 and 7 cats",
    "punctuation!!! ... ?? (brackets) [x] {y} @#$%",
    "café naïve über straße résumé",
    "cafe\u0301 decomposed e\u0301",
    "emoji 👍 and ☃ snowman",
    "Ελληνικά και Кириллица",
    "unseen words: zyxwvut qqq",
    "a photo <|endoftext|> of a dog",
    "<|startoftext|>already marked",
    "x\u00a0y non-breaking space",
    "under_score and-hyphen",
    "a " * 40 + "long text",
]


def make_clip(out, lines):
    merges = learn_merges(lines, 300)
    tokens = list(BYTE_ENCODER.values())
    tokens += [t + "</w>" for t in tokens]
    tokens += ["".join(m) for m in merges]
    tokens += ["<|startoftext|>", "<|endoftext|>"]
    vocab = {t: i for i, t in enumerate(tokens)}
    assert len(vocab) == len(tokens)
    folder = os.path.join(out, "clip")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    special = {"content": "", "single_word": False, "lstrip": False, "rstrip": False,
               "normalized": True, "__type": "AddedToken"}
    config = {"unk_token": dict(special, content="<|endoftext|>"),
              "bos_token": dict(special, content="<|startoftext|>"),
              "eos_token": dict(special, content="<|endoftext|>"),
              "pad_token": "<|endoftext|>", "add_prefix_space": False, "errors": "replace",
              "do_lower_case": True, "model_max_length": 77,
              "tokenizer_class": "CLIPTokenizer"}
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    ref = ClipReference(vocab, merges)
    specials = ["<|startoftext|>", "<|endoftext|>"]
    return {"max_length": 77, "pad_id": vocab["<|endoftext|>"],
            "cases": [{"text": t, "ids": ref.encode(t, specials)} for t in CLIP_TEXTS]}


# ---- SigLIP ---------------------------------------------------------------------------

def canonicalize_text(text):
    """SiglipTokenizer.canonicalize_text (keep_punctuation_exact_string None)."""
    text = text.translate(str.maketrans("", "", string.punctuation))
    text = re.sub(r"\s+", " ", text)
    return text.strip()


class SiglipReference:
    """transformers' SiglipTokenizer (tokenization_siglip.py) over SentencePiece."""

    def __init__(self, model):
        proto = model_pb2.ModelProto()
        proto.ParseFromString(model)
        proto.normalizer_spec.add_dummy_prefix = False  # get_spm_processor
        self.sp = spm.SentencePieceProcessor(model_proto=proto.SerializeToString())
        self.unk_token, self.eos_token = "<unk>", "</s>"
        self.unk_token_length = len(self.sp.encode(self.unk_token, out_type=str))

    def _tokenize(self, text):
        text = canonicalize_text(text)
        tokens = self.sp.encode(self.unk_token + text, out_type=str)
        return tokens[self.unk_token_length:] if len(tokens) >= self.unk_token_length else tokens

    def tokenize(self, text):
        """SiglipTokenizer.tokenize, with PreTrainedTokenizer.tokenize's
        do_lower_case (texts without special tokens)."""
        tokens = self._tokenize((SPACE + text.replace(SPACE, " ")).lower())
        specials = {self.unk_token, self.eos_token}
        if len(tokens) > 1 and tokens[0] == SPACE and tokens[1] in specials:
            tokens = tokens[1:]
        return tokens

    def encode(self, text):
        ids = [self.sp.piece_to_id(t) for t in self.tokenize(text)]
        return ids + [self.sp.piece_to_id(self.eos_token)]


SIGLIP_TEXTS = [
    "a photo of a cat",
    "A Photo Of Two Dogs playing in the park.",
    "",
    "   ",
    "!!!",
    "  leading   and trailing spaces  ",
    "tabs\tand\nnewlines\r\nhere",
    "Hello, World! It's a dog's life; isn't it?",
    "numbers 2024 and 7 cats",
    "punctuation... (brackets) [x] {y} @#$% under_score",
    "café naïve über straße résumé",
    "cafe\u0301 decomposed",
    "ＡＢＣ fullwidth ｐｈｏｔｏ",
    "emoji 👍 and ☃ snowman",
    "\u2581underscore\u2581chars\u2581",
    "x\u00a0y\u3000z\u2028w\x1cv",
    "MIXED case WORDS",
    "unseen zyxwvut qqq",
    "a " * 70 + "long text",
]


def make_siglip(out, lines):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, num_threads=1, minloglevel=2,
        model_type="unigram", vocab_size=160, character_coverage=0.995, pad_id=0, eos_id=1,
        unk_id=2, bos_id=-1, seed_sentencepiece_size=2000, shuffle_input_sentence=False)
    model = buf.getvalue()
    folder = os.path.join(out, "siglip")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "spiece.model"), "wb") as f:
        f.write(model)
    token = {"lstrip": True, "normalized": False, "rstrip": True, "single_word": False,
             "special": True}
    config = {"added_tokens_decoder": {"1": dict(token, content="</s>"),
                                       "2": dict(token, content="<unk>")},
              "additional_special_tokens": [], "clean_up_tokenization_spaces": True,
              "do_lower_case": True, "eos_token": "</s>", "model_input_names": ["input_ids"],
              "model_max_length": 64, "pad_token": "</s>", "processor_class": "SiglipProcessor",
              "sp_model_kwargs": {}, "tokenizer_class": "SiglipTokenizer", "unk_token": "<unk>"}
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    ref = SiglipReference(model)
    return {"max_length": 64, "pad_id": ref.sp.piece_to_id("</s>"),
            "cases": [{"text": t, "ids": ref.encode(t)} for t in SIGLIP_TEXTS]}


def write_fuzz_corpus(model, where):
    """fuzz/corpus/spiece: the model without its precompiled_charsmap (237 KB
    of nmt_nfkc), whole and cut inside its pieces."""
    proto = model_pb2.ModelProto()
    proto.ParseFromString(model)
    proto.normalizer_spec.precompiled_charsmap = b""
    small = proto.SerializeToString()
    os.makedirs(where, exist_ok=True)
    for name, data in (("unigram.model", small), ("unigram_cut.model", small[:len(small) // 2])):
        with open(os.path.join(where, name), "wb") as f:
            f.write(data)


def main():
    out = sys.argv[1]
    lines = corpus(4000, 1)
    expected = {"clip": make_clip(out, lines), "siglip": make_siglip(out, lines)}
    if len(sys.argv) > 2:
        with open(os.path.join(out, "siglip", "spiece.model"), "rb") as f:
            write_fuzz_corpus(f.read(), sys.argv[2])
    with open(os.path.join(out, "text_tokenizers.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
