#!/usr/bin/python3
"""gen_spm.py — trains small SentencePiece models (Debian's python3-sentencepiece)
and writes their tokenizer.json the way Hugging Face's converter
(transformers' convert_slow_tokenizer.py) does, with SentencePiece's own
tokenization of every text as the reference. gen_cases.js runs it:

    /usr/bin/python3 gen_spm.py OUT_DIR < texts.json > spm_cases.json

stdin: {"texts": [...], "corpus": [...]}: the texts to tokenize, and the
training text (one sentence a line). Writes OUT_DIR/<name>/tokenizer.json and
OUT_DIR/<name>/spm.model; prints, for each model, SentencePiece's ids (in the
tokenizer.json's numbering) and spans (encode_as_immutable_proto's begin and
end, which the Python module gives in code points of the text) of every text.

Models:
 - unigram: Unigram with nmt_nfkc (a precompiled_charsmap), written as
   XLMRobertaConverter writes XLM-R's: <s> <pad> </s> <unk> first, then the
   pieces after SentencePiece's three (ids + 1: fairseq's numbering),
   <mask> last; SpmConverter's normalizer (Precompiled, Strip right,
   Replace " {2,}" -> "\u2581"), Metaspace (prepend_scheme "always"),
   <s> $A </s> and <s> $A </s> </s> $B </s>.
 - unigram_bytes: Unigram with byte_fallback and the identity normalizer
   (no charsmap), SentencePiece's own ids, SpmConverter's pipeline with
   byte_fallback as LlamaConverter handles it.
 - spm_bpe: BPE with byte_fallback and split_digits, no normalisation (as
   Llama's): LlamaConverter's file (vocabulary in SentencePiece's order,
   merges from SentencePieceExtractor's rule, Prepend "\u2581" and
   Replace " " -> "\u2581", fuse_unk, byte_fallback, <s> $A).
"""
import base64
import io
import json
import os
import sys

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2 as model_pb2

SPACE = "\u2581"


def train(corpus, **options):
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_writer=out,
                                   num_threads=1, minloglevel=2, **options)
    return out.getvalue()


def added(content, id_, special, **extra):
    token = {"id": id_, "content": content, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": special}
    token.update(extra)
    return token


def template(single, pair, specials):
    def items(spec):
        out = []
        for part in spec:
            name, type_id = (part.split(":") + ["0"])[:2]
            key = "Sequence" if name in ("$A", "$B") else "SpecialToken"
            out.append({key: {"id": name[1:] if key == "Sequence" else name,
                              "type_id": int(type_id)}})
        return out
    return {"type": "TemplateProcessing", "single": items(single), "pair": items(pair),
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in specials}}


def spm_normalizer(proto):
    """SpmConverter.normalizer."""
    rest = [{"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": SPACE}]
    charsmap = proto.normalizer_spec.precompiled_charsmap
    if not charsmap:
        return {"type": "Sequence", "normalizers": rest}
    return {"type": "Sequence", "normalizers": [
        {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()}] + rest}


def metaspace(scheme):
    return {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": scheme, "split": True}


def xlmr_json(proto):
    pieces = [(p.piece, p.score) for p in proto.pieces]
    vocab = [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    vocab += [[p, s] for p, s in pieces[3:]] + [["<mask>", 0.0]]
    mask = len(vocab) - 1
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added("<s>", 0, True), added("<pad>", 1, True), added("</s>", 2, True),
                         added("<unk>", 3, True), added("<mask>", mask, True, lstrip=True)],
        "normalizer": spm_normalizer(proto),
        "pre_tokenizer": metaspace("always"),
        "post_processor": template(["<s>", "$A", "</s>"], ["<s>", "$A", "</s>", "</s>", "$B", "</s>"],
                                   [("<s>", 0), ("</s>", 2)]),
        "decoder": {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "always",
                    "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }


def xlmr_id(spm_id):
    """fairseq's numbering of a SentencePiece id, as XLMRobertaConverter's vocabulary has it."""
    return {0: 3, 1: 0, 2: 2}.get(spm_id, spm_id + 1)


def specials_of(proto):
    return [added(p.piece, i, True) for i, p in enumerate(proto.pieces) if p.type in (2, 3)]


def unigram_bytes_json(proto):
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": specials_of(proto),
        "normalizer": spm_normalizer(proto),
        "pre_tokenizer": metaspace("first"),
        "post_processor": template(["<s>", "$A", "</s>"], ["<s>", "$A", "</s>", "$B:1", "</s>:1"],
                                   [("<s>", 1), ("</s>", 2)]),
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ",
                                                         "start": 1, "stop": 0}]},
        "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": True,
                  "vocab": [[p.piece, p.score] for p in proto.pieces]},
    }


def extract_merges(vocab, scores):
    """SentencePieceExtractor's rule (generate_merges with scores): every split of
    a piece into two pieces, ordered by the piece's score (highest first), then
    the lengths of the two parts, then their ids."""
    merges = []
    for piece, score in scores.items():
        local = [(piece[:k], piece[k:], score) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        merges.extend(local)
    merges.sort(key=lambda m: (m[2], len(m[0]), len(m[1])), reverse=True)
    return [[a, b] for a, b, _ in merges]


def spm_bpe_json(proto):
    vocab = {p.piece: i for i, p in enumerate(proto.pieces)}
    scores = {p.piece: p.score for p in proto.pieces}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": specials_of(proto),
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]},
        "pre_tokenizer": None,
        "post_processor": template(["<s>", "$A"], ["<s>", "$A", "<s>:1", "$B:1"], [("<s>", 1)]),
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ",
                                                         "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": extract_merges(vocab, scores)},
    }


MODELS = {
    "unigram": (dict(model_type="unigram", vocab_size=1500, character_coverage=0.995), xlmr_json,
                xlmr_id),
    "unigram_bytes": (dict(model_type="unigram", vocab_size=1200, character_coverage=0.99,
                           byte_fallback=True, normalization_rule_name="identity"),
                      unigram_bytes_json, lambda i: i),
    "spm_bpe": (dict(model_type="bpe", vocab_size=1200, character_coverage=0.99,
                     byte_fallback=True, split_digits=True, normalization_rule_name="identity",
                     remove_extra_whitespaces=False), spm_bpe_json, lambda i: i),
}


def main():
    out_dir = sys.argv[1]
    job = json.load(sys.stdin)
    result = {}
    for name, (options, to_json, to_id) in MODELS.items():
        model = train(job["corpus"], **options)
        proto = model_pb2.ModelProto()
        proto.ParseFromString(model)
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        with open(os.path.join(out_dir, name, "spm.model"), "wb") as f:
            f.write(model)
        with open(os.path.join(out_dir, name, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(to_json(proto), f, ensure_ascii=False)
            f.write("\n")
        sp = spm.SentencePieceProcessor(model_proto=model)
        refs = []
        for text in job["texts"]:
            pieces = sp.encode_as_immutable_proto(text).pieces
            refs.append({"ids": [to_id(p.id) for p in pieces],
                         "offsets": [[p.begin, p.end] for p in pieces]})
        result[name] = refs
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
