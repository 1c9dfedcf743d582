#!/usr/bin/python3
"""corpus_tokenizer_json.py — writes fuzz/corpus/tokenizer_json/: small
tokenizer.json files, one per model and most components, each a few KB
(the fuzzer's inputs are capped at 8 KiB), for fuzz_tokenizer_json to
mutate. Run from the repository root."""
import base64
import json
import os
import struct

OUT = "fuzz/corpus/tokenizer_json"
WORDS = ["<unk>", "<s>", "</s>", "<pad>", "[UNK]", "[CLS]", "[SEP]", "h", "e", "l", "o", "w",
         "r", "d", "he", "ll", "llo", "hello", "wo", "wor", "world", "##o", "##ld", "\u2581", "\u2581h",
         "\u2581hello", "\u2581w", "\u2581world", "<0x41>", "<0xE4>", "\u0120", "\u0120h", "\u0120w"]


def added(content, i, special=True, **extra):
    t = {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": not special, "special": special}
    t.update(extra)
    return t


def base(model, **parts):
    j = {"version": "1.0", "truncation": None, "padding": None,
         "added_tokens": [added("<s>", 1), added("</s>", 2), added("hello", 17, False)],
         "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
         "model": model}
    j.update(parts)
    return j


VOCAB = {w: i for i, w in enumerate(WORDS)}
MERGES = [["h", "e"], ["l", "l"], ["ll", "o"], ["he", "llo"], ["w", "o"], ["wo", "r"]]
TEMPLATE = {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "</s>", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]},
                               "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}}
# a charsmap with an empty trie and one replacement string
CHARSMAP = base64.b64encode(struct.pack("<I", 0) + b"a\0").decode()

FILES = {
    "wordpiece": base({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                       "max_input_chars_per_word": 100, "vocab": VOCAB},
                      normalizer={"type": "BertNormalizer", "clean_text": True,
                                  "handle_chinese_chars": True, "strip_accents": None,
                                  "lowercase": True},
                      pre_tokenizer={"type": "BertPreTokenizer"},
                      post_processor={"type": "BertProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1]},
                      decoder={"type": "WordPiece", "prefix": "##", "cleanup": True}),
    "bpe_byte_level": base({"type": "BPE", "unk_token": None, "byte_fallback": False,
                            "vocab": VOCAB, "merges": MERGES},
                           pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True,
                                          "use_regex": True},
                           post_processor={"type": "RobertaProcessing", "sep": ["</s>", 2],
                                           "cls": ["<s>", 1], "trim_offsets": True,
                                           "add_prefix_space": True},
                           decoder={"type": "ByteLevel"},
                           truncation={"max_length": 8, "strategy": "LongestFirst", "stride": 0,
                                       "direction": "Right"},
                           padding={"strategy": {"Fixed": 12}, "pad_id": 3, "pad_type_id": 0,
                                    "direction": "Right", "pad_to_multiple_of": 4}),
    "bpe_fallback": base({"type": "BPE", "unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True,
                          "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>",
                          "ignore_merges": True, "vocab": VOCAB, "merges": [" ".join(m) for m in MERGES]},
                         normalizer={"type": "Sequence", "normalizers": [
                             {"type": "NFKC"}, {"type": "Prepend", "prepend": "\u2581"},
                             {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": "\u2581"},
                             {"type": "Strip", "strip_left": True, "strip_right": True},
                             {"type": "Lowercase"}, {"type": "StripAccents"}]},
                         pre_tokenizer={"type": "Sequence", "pretokenizers": [
                             {"type": "Split", "pattern": {"Regex": "\\p{L}+|\\p{N}"},
                              "behavior": "Isolated", "invert": False},
                             {"type": "Digits", "individual_digits": True},
                             {"type": "Punctuation", "behavior": "MergedWithPrevious"},
                             {"type": "Whitespace"}, {"type": "WhitespaceSplit"}]},
                         post_processor=TEMPLATE,
                         decoder={"type": "Sequence", "decoders": [
                             {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                             {"type": "ByteFallback"}, {"type": "Fuse"},
                             {"type": "Strip", "content": " ", "start": 1, "stop": 0},
                             {"type": "BPEDecoder", "suffix": "</w>"}]}),
    "unigram": base({"type": "Unigram", "unk_id": 0, "byte_fallback": True,
                     "vocab": [[w, -1.0 - 0.25 * i] for i, w in enumerate(WORDS)]},
                    normalizer={"type": "Sequence", "normalizers": [
                        {"type": "Precompiled", "precompiled_charsmap": CHARSMAP},
                        {"type": "NFD"}, {"type": "NFC"}, {"type": "NFKD"}]},
                    pre_tokenizer={"type": "Metaspace", "replacement": "\u2581",
                                   "prepend_scheme": "first", "split": True},
                    post_processor={"type": "Sequence", "processors": [
                        {"type": "ByteLevel", "add_prefix_space": False,
                         "trim_offsets": False}, TEMPLATE]},
                    decoder={"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}),
}

os.makedirs(OUT, exist_ok=True)
for name, j in FILES.items():
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(j, f, ensure_ascii=False)
# the real charsmap, cut to fit: the start of XLM-R-style files
with open("tests/data/tokenizer_json/unigram/tokenizer.json", encoding="utf-8") as f:
    head = f.read(6000)
with open(os.path.join(OUT, "unigram_cut.json"), "w", encoding="utf-8") as f:
    f.write(head)
