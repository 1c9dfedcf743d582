#!/usr/bin/python3
"""Writes tests/data/mlm/: *ForMaskedLM folders laid out as the Hub's
bert-base-uncased, roberta-base, xlm-roberta-base, distilbert-base-uncased,
answerdotai/ModernBERT-base and an ELECTRA generator lay themselves out
(small random weights under the real tensor names; decoders tied, as those
checkpoints store them, and one untied), and expected.json: for each text
the token ids, the mask positions, the head's logits there [V] and
FillMaskPipeline's predictions, computed in float64 from exactly the
float32 weights stored. transformers cannot be installed here, so each
reference follows the upstream source it names:
  encoders      gen_pipelines.py bert_forward (BertModel; RoBERTa's positions,
                ELECTRA's embeddings_project), gen_families.py make_distilbert
                (DistilBertModel) and make_modernbert (ModernBertModel)
  bert_head     transformers/models/bert/modeling_bert.py
                BertPredictionHeadTransform.forward (dense, ACT2FN[hidden_act],
                LayerNorm layer_norm_eps), BertLMPredictionHead.forward
                (decoder + bias)
  roberta_head  models/roberta/modeling_roberta.py RobertaLMHead.forward (dense,
                gelu, layer_norm, decoder + bias); XLMRobertaLMHead the same
  distil_head   models/distilbert/modeling_distilbert.py DistilBertForMaskedLM.forward
                (vocab_transform, get_activation(activation), vocab_layer_norm
                eps 1e-12, vocab_projector)
  electra_head  models/electra/modeling_electra.py ElectraGeneratorPredictions.forward
                (dense hidden_size -> embedding_size, gelu, LayerNorm),
                ElectraForMaskedLM.generator_lm_head
  modern_head   models/modernbert/modeling_modernbert.py ModernBertPredictionHead.forward
                (norm(act(dense(x))), dense bias by classifier_bias, norm bias by
                norm_bias, eps norm_eps), ModernBertForMaskedLM.decoder (bias by
                decoder_bias)
  fill_mask     transformers/pipelines/fill_mask.py FillMaskPipeline: softmax of
                the logits at each mask (mask_token_id), probs.topk(top_k),
                token_str = tokenizer.decode([p]), sequence = tokenizer.decode(ids
                with p in the mask's place, skip_special_tokens = one mask)
  decoders      tokenizers' decoders: gen_families.py wordpiece_decode (WordPiece)
                and byte_level_decode (ByteLevel); metaspace_decode below
                (decoders/metaspace.rs Metaspace::decode_chain)
The texts of the tokenizer.json folders are reference cases of their
tokenizer (the Rust tokenizers library's ids) with one word, a token of its
own, replaced by the mask token, whose lstrip takes the space before it.

    /usr/bin/python3 tests/data/gen_mlm.py"""
import json
import math
import os
import shutil

import numpy as np
import torch

import gen_families as fam
from gen_pipelines import (VOCAB, bert_forward, dump, floats, layer_norm, make_bert, wordpiece,
                           write_safetensors)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlm")
torch.set_default_dtype(torch.float64)

TOP_K = 5  # FillMaskPipeline's default
SPECIAL_BIAS = -6.0  # the specials' decoder bias: kept out of the top k, as trained heads do
BERT_TEXTS = ["the cat sat on the [MASK].", "[MASK] is the big red house?",
              "the quick brown [MASK] jumps over the [MASK] dog"]


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def r(g, *shape, scale=0.3):
    return (torch.randn(*shape, generator=g) * scale).float()


# ---- Heads ---------------------------------------------------------------------------------

def head_weights(g, names, D, E, V, specials, biases=(True, True, True), decoder=False):
    """The head's tensors under names (dense, norm, decoder, bias): dense [E, D],
    LayerNorm [E], the decoder bias [V] (SPECIAL_BIAS at the specials); the
    decoder weight [V, E] when untied (decoder True)."""
    dense, norm, dec, bias = names
    w = {dense + ".weight": r(g, E, D, scale=1.5 / math.sqrt(D)),
         norm + ".weight": 1 + r(g, E, scale=0.1)}
    if biases[0]:
        w[dense + ".bias"] = r(g, E, scale=0.1)
    if biases[1]:
        w[norm + ".bias"] = r(g, E, scale=0.1)
    if biases[2]:
        b = r(g, V, scale=0.5)
        b[list(specials)] = SPECIAL_BIAS
        w[bias] = b
    if decoder:
        w[dec + ".weight"] = r(g, V, E, scale=1.0)
    return w


def mlm_logits(w, names, x, act, eps, embeddings):
    """decoder(norm(act(dense(x)))) + bias for x [T, D] (the functions named
    in the module's docstring, by family): [T, V]."""
    dense, norm, dec, bias = names

    def W(name):
        return w[name].double() if name in w else 0
    h = act(x @ W(dense + ".weight").T + W(dense + ".bias"))
    h = layer_norm(h, W(norm + ".weight"), W(norm + ".bias"), eps)
    decoder = w[dec + ".weight"] if dec + ".weight" in w else embeddings
    return h @ decoder.double().T + W(bias)


# ---- FillMaskPipeline ----------------------------------------------------------------------

def metaspace_decode(tokens):
    """Metaspace::decode_chain (prepend_scheme always): ▁ to spaces, the first
    token's leading one dropped."""
    out = []
    for i, t in enumerate(tokens):
        t = t.replace("\u2581", " ")
        out.append(t[1:] if i == 0 and t.startswith(" ") else t)
    return "".join(out)


class Tok:
    """What FillMaskPipeline asks of its tokenizer: the mask id, id -> token
    (a dict), the special ids, the decoder."""

    def __init__(self, vocab, mask_id, specials, decode_tokens):
        self.vocab, self.mask_id, self.specials = vocab, mask_id, set(specials)
        self.decode_tokens = decode_tokens

    def decode(self, ids, skip_special_tokens=False):
        """Tokenizer::decode: ids without a token (the model's rows past the
        vocabulary) skipped, the specials too with skip_special_tokens."""
        return self.decode_tokens([self.vocab[i] for i in ids if i in self.vocab
                                   and not (skip_special_tokens and i in self.specials)])


def fill_mask(logits, ids, tok):
    """FillMaskPipeline.postprocess for one text: per mask, top_k of the
    softmax; the K-th must stand clear of the next so float32 keeps the order."""
    at = [t for t, i in enumerate(ids) if i == tok.mask_id]
    out = []
    for t in at:
        probs = torch.softmax(logits[t], 0)
        order = sorted(range(len(probs)), key=lambda v: (-float(probs[v]), v))
        for a, b in zip(order[:TOP_K], order[1:TOP_K + 1]):
            assert probs[a] - probs[b] > 1e-5, "a near tie in the top k"
        row = []
        for p in order[:TOP_K]:
            filled = list(ids)
            filled[t] = p
            row.append({"token": p, "score": float(probs[p]), "token_str": tok.decode([p]),
                        "sequence": tok.decode(filled, skip_special_tokens=len(at) == 1)})
        out.append(row)
    return at, out


def every_position(logits):
    """tf_pipeline_predict_tokens' reference: at every token, the top_k of
    the softmax (float64) as {"token", "score"}, ranked as fill_mask ranks a
    mask's; near ties are left to the reader (tests compare a token where
    its score stands clear of the next)."""
    rows = []
    for row in logits:
        probs = torch.softmax(row, 0)
        order = sorted(range(len(probs)), key=lambda v: (-float(probs[v]), v))
        rows.append([{"token": v, "score": float(probs[v])} for v in order[:TOP_K + 1]])
    return rows


def dump_for_rust(d, cases):
    """What rust/tests/fill_mask.rs reads (the crate has no JSON reader):
    expected_fill_mask.bin, NUL-terminated fields one after another: for
    each text, the text and its count of masks, then for each mask's
    predictions the token id, the score (repr), token_str and sequence."""
    fields = []
    for c in cases:
        fields += [c["text"], str(len(c["predictions"]))]
        for row in c["predictions"]:
            for p in row:
                fields += [str(p["token"]), repr(p["score"]), p["token_str"], p["sequence"]]
    with open(os.path.join(d, "expected_fill_mask.bin"), "wb") as f:
        f.write(b"".join(x.encode() + b"\0" for x in fields))


def expected(d, texts, all_ids, logits_of, tok, V):
    """expected.json, and for the Rust tests the predictions (dump_for_rust)."""
    cases = []
    for text, ids in zip(texts, all_ids):
        logits = logits_of(ids)
        at, predictions = fill_mask(logits, ids, tok)
        cases.append({"text": text, "ids": ids, "mask_positions": at,
                      "logits": [floats(logits[t]) for t in at], "predictions": predictions,
                      "every_position": every_position(logits)})
    dump(os.path.join(d, "expected.json"), {"vocab_size": V, "top_k": TOP_K, "cases": cases})
    dump_for_rust(d, cases)


def folder(name):
    d = os.path.join(OUT, name)
    os.makedirs(d)
    return d


def save_weights(d, w):
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: v.numpy().astype(np.float32) for k, v in w.items()})


# ---- WordPiece folders (vocab.txt) -------------------------------------------------------

WORDPIECE_SPECIALS = [VOCAB.index(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]
WORDPIECE = Tok(dict(enumerate(VOCAB)), VOCAB.index("[MASK]"), WORDPIECE_SPECIALS,
                fam.wordpiece_decode)


def bert_ids(text):
    """BertTokenizer: [MASK] (a special token) split out first, the rest
    WordPiece'd."""
    ids = []
    for k, part in enumerate(text.split("[MASK]")):
        ids += ([WORDPIECE.mask_id] if k else []) + wordpiece(part)
    return [VOCAB.index("[CLS]")] + ids + [VOCAB.index("[SEP]")]


def write_vocab_txt(d):
    """vocab.txt and BertTokenizer's files, as bert-base-uncased has them."""
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    dump(os.path.join(d, "tokenizer_config.json"),
         {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})


BERT_NAMES = ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
              "cls.predictions.decoder", "cls.predictions.bias")


def bert(name, seed, untied):
    """BertForMaskedLM (no pooler: add_pooling_layer=False). Tied: the decoder
    is bert.embeddings.word_embeddings (not stored, as the Hub's
    model.safetensors); untied: tie_word_embeddings false, its own
    cls.predictions.decoder.weight, and older checkpoints' names: the bias
    as cls.predictions.decoder.bias, the LayerNorm's as gamma and beta."""
    d = folder(name)
    V, D = len(VOCAB), 16
    w, cfg, g = make_bert(seed, D=D, V=V)
    w = {"bert." + k: v for k, v in w.items() if not k.startswith("pooler.")}
    head = head_weights(g, BERT_NAMES, D, D, V, WORDPIECE_SPECIALS, decoder=untied)
    cfg.update(architectures=["BertForMaskedLM"])
    saved = dict(head)
    if untied:
        cfg["tie_word_embeddings"] = False
        head["cls.predictions.decoder.bias"] = saved["cls.predictions.decoder.bias"] = \
            head.pop("cls.predictions.bias")
        del saved["cls.predictions.bias"]
        for new, old in (("weight", "gamma"), ("bias", "beta")):
            saved[f"{BERT_NAMES[1]}.{old}"] = saved.pop(f"{BERT_NAMES[1]}.{new}")
    save_weights(d, {**w, **saved})
    dump(os.path.join(d, "config.json"), cfg)
    write_vocab_txt(d)
    names = BERT_NAMES[:3] + (("cls.predictions.decoder.bias",) if untied else BERT_NAMES[3:])

    def logits_of(ids):
        x, _ = bert_forward(w, cfg, ids, [0] * len(ids), prefix="bert.")
        return mlm_logits(head, names, x, gelu, cfg["layer_norm_eps"],
                          w["bert.embeddings.word_embeddings.weight"])
    expected(d, BERT_TEXTS, [bert_ids(t) for t in BERT_TEXTS], logits_of, WORDPIECE, V)


DISTIL_NAMES = ("vocab_transform", "vocab_layer_norm", "vocab_projector", "vocab_projector.bias")


def distilbert():
    """DistilBertForMaskedLM, vocab_projector tied to the word embeddings."""
    d = folder("distilbert_base_uncased")
    V = len(VOCAB)
    w, cfg, g, forward = fam.make_distilbert(41, V, prefix="distilbert.")
    head = head_weights(g, DISTIL_NAMES, fam.D, fam.D, V, WORDPIECE_SPECIALS)
    cfg["architectures"] = ["DistilBertForMaskedLM"]
    save_weights(d, {**w, **head})
    dump(os.path.join(d, "config.json"), cfg)
    write_vocab_txt(d)

    def logits_of(ids):
        return mlm_logits(head, DISTIL_NAMES, forward(ids), gelu, 1e-12,
                          w["distilbert.embeddings.word_embeddings.weight"])
    expected(d, BERT_TEXTS, [bert_ids(t) for t in BERT_TEXTS], logits_of, WORDPIECE, V)


ELECTRA_NAMES = ("generator_predictions.dense", "generator_predictions.LayerNorm",
                 "generator_lm_head", "generator_lm_head.bias")


def electra_generator():
    """ElectraForMaskedLM as google/electra-small-generator: embedding_size 8
    below hidden_size 16 (embeddings_project), the head's dense 16 -> 8, the
    generator_lm_head tied to the 8-wide word embeddings."""
    d = folder("electra_generator")
    V, D, E = len(VOCAB), 16, 8
    w, cfg, g = make_bert(43, D=D, V=V)
    w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
    P = cfg["max_position_embeddings"]
    w["embeddings.word_embeddings.weight"] = r(g, V, E, scale=1.0)
    w["embeddings.position_embeddings.weight"] = r(g, P, E, scale=0.5)
    w["embeddings.token_type_embeddings.weight"] = r(g, 2, E, scale=0.5)
    w["embeddings.LayerNorm.weight"] = 1 + r(g, E, scale=0.1)
    w["embeddings.LayerNorm.bias"] = r(g, E, scale=0.1)
    w["embeddings_project.weight"] = r(g, D, E, scale=1 / math.sqrt(E))
    w["embeddings_project.bias"] = r(g, D, scale=0.1)
    cfg.update(model_type="electra", architectures=["ElectraForMaskedLM"], embedding_size=E)
    head = head_weights(g, ELECTRA_NAMES, D, E, V, WORDPIECE_SPECIALS)
    save_weights(d, {**{"electra." + k: v for k, v in w.items()}, **head})
    dump(os.path.join(d, "config.json"), cfg)
    write_vocab_txt(d)

    def logits_of(ids):
        x, _ = bert_forward(w, cfg, ids, [0] * len(ids))
        return mlm_logits(head, ELECTRA_NAMES, x, gelu, cfg["layer_norm_eps"],
                          w["embeddings.word_embeddings.weight"])
    expected(d, BERT_TEXTS, [bert_ids(t) for t in BERT_TEXTS], logits_of, WORDPIECE, V)


# ---- tokenizer.json folders ----------------------------------------------------------------

def masked_cases(cases, vocab, mask_id, mark, mask_text, n):
    """n texts from reference cases: plain ASCII single texts whose token k
    (not the first word) is a word of its own (it starts with mark, the next
    one too) after one space, that word replaced by mask_text (whose lstrip
    takes that space alone); their ids with mask_id at k."""
    out = []
    for c in cases:
        ids = c["ids"]
        if "pair" in c or not c["text"].isascii() or not 6 <= len(ids) <= 20 or "<" in c["text"]:
            continue
        toks = [vocab.get(i, "") for i in ids]
        for k in range(2, len(ids) - 2):
            word = toks[k][1:]
            if not (toks[k].startswith(mark) and toks[k + 1].startswith(mark) and word.isalpha()):
                continue
            at = c["text"].find(" " + word + " ")
            if at < 1 or c["text"][at - 1].isspace() or c["text"].count(" " + word + " ") != 1:
                continue
            text = c["text"][:at] + " " + mask_text + c["text"][at + 1 + len(word):]
            out.append((text, ids[:k] + [mask_id] + ids[k + 1:]))
            break
        if len(out) == n:
            return out
    raise AssertionError("too few cases to mask")


ROBERTA_NAMES = ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias")


def roberta_like(name, seed, source, model_type, architecture, cases, tok, untied=False):
    """RobertaForMaskedLM / XLMRobertaForMaskedLM (fam.roberta_folder's model
    under "roberta.", no pooler, its tokenizer_config.json naming no
    mask_token: the tokenizer class's "<mask>") with RobertaLMHead; cases:
    (text, ids)."""
    d, w, cfg, g, _ = fam.roberta_folder(name, seed, source, model_type, architecture)
    V, D = source[2], fam.HEAD_D
    head = head_weights(g, ROBERTA_NAMES, D, D, V, tok.specials, decoder=untied)
    if untied:
        cfg["tie_word_embeddings"] = False
        dump(os.path.join(d, "config.json"), cfg)
    save_weights(d, {**{"roberta." + k: v for k, v in w.items()}, **head})

    def logits_of(ids):
        return mlm_logits(head, ROBERTA_NAMES, fam.roberta_hidden(w, cfg, ids), gelu,
                          cfg["layer_norm_eps"], w["embeddings.word_embeddings.weight"])
    expected(d, [t for t, _ in cases], [i for _, i in cases], logits_of, tok, V)


def tokenizer_vocab(path):
    with open(path) as f:
        t = json.load(f)
    vocab = {i: s for s, i in t["model"]["vocab"].items()} if isinstance(t["model"]["vocab"], dict) \
        else {i: p[0] for i, p in enumerate(t["model"]["vocab"])}
    vocab.update({a["id"]: a["content"] for a in t["added_tokens"]})
    return vocab, {a["content"]: a["id"] for a in t["added_tokens"]}


def roberta():
    """roberta-base: the renumbered byte-level BPE of gen_families.py (its
    ids mapped), <mask> lstrip; one folder untied."""
    tok_json, new, cases, n = fam.roberta_tokenizer()
    old_vocab, old_added = tokenizer_vocab(os.path.join(fam.ROBERTA_TOKENIZER, "tokenizer.json"))
    texts = masked_cases(cases, old_vocab, old_added["<mask>"], "\u0120", "<mask>", 3)
    cases = [(t, [new[i] for i in ids]) for t, ids in texts]
    vocab = {new[i]: s for i, s in old_vocab.items()}
    specials = [new[old_added[s]] for s in fam.ROBERTA_SPECIALS]
    tok = Tok(vocab, new[old_added["<mask>"]], specials, fam.byte_level_decode)
    source = (fam.ROBERTA_RENUMBERED, new, n, None)
    roberta_like("roberta_base", 45, source, "roberta", "RobertaForMaskedLM", cases, tok)
    roberta_like("roberta_untied", 46, source, "roberta", "RobertaForMaskedLM", cases, tok,
                 untied=True)


def xlm_roberta():
    """xlm-roberta-base: tokenizer_json/unigram (Metaspace), <mask> lstrip."""
    source = fam.xlmr_tokenizer_source()
    vocab, added = tokenizer_vocab(source[0])
    cases = masked_cases(source[3], vocab, added["<mask>"], "\u2581", "<mask>", 3)
    specials = [added[s] for s in fam.ROBERTA_SPECIALS]
    tok = Tok(vocab, added["<mask>"], specials, metaspace_decode)
    roberta_like("xlm_roberta_base", 47, source, "xlm-roberta", "XLMRobertaForMaskedLM", cases,
                 tok)


MODERN_NAMES = ("head.dense", "head.norm", "decoder", "decoder.bias")


MODERN_PADDED = 16  # rows past the tokenizer's, as ModernBERT-base's 50368 of 50280


def modernbert():
    """answerdotai/ModernBERT-base: ModernBertForMaskedLM, its config's head
    keys (classifier_activation gelu, classifier_bias false, norm_bias false,
    decoder_bias true), decoder tied to model.embeddings.tok_embeddings; its
    vocab_size MODERN_PADDED past the tokenizer's, one of those rows
    predicted (a bias of 12: a token_str of "", left out of the sequence)."""
    source = fam.modernbert_tokenizer_source()
    vocab, added = tokenizer_vocab(source[0])
    cases = masked_cases(source[3], vocab, added["[MASK]"], "\u0120", "[MASK]", 3)
    V, D = source[2] + MODERN_PADDED, fam.HEAD_D
    W, forward, cfg, g = fam.make_modernbert(48, D, V)
    cfg.update(architectures=["ModernBertForMaskedLM"], classifier_activation="gelu",
               classifier_bias=False, decoder_bias=True, tie_word_embeddings=True)
    d = fam.modernbert_folder("modernbert_base", cfg, source)
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 64,
          "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
          "mask_token": "[MASK]", "unk_token": "[UNK]"})
    specials = [added[s] for s in fam.MODERNBERT_SPECIALS]
    head = head_weights(g, MODERN_NAMES, D, D, V, specials, biases=(False, False, True))
    head["decoder.bias"][V - 3] = 12.0
    save_weights(d, {**fam.modernbert_hub_names(W), **head})
    tok = Tok(vocab, added["[MASK]"], specials, fam.byte_level_decode)

    def logits_of(ids):
        return mlm_logits(head, MODERN_NAMES, forward(ids), gelu, cfg["norm_eps"],
                          W["embed.token.weight"])
    expected(d, [t for t, _ in cases], [i for _, i in cases], logits_of, tok, V)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    fam.OUT = OUT  # its folder makers write here
    bert("bert_base_uncased", 40, untied=False)
    bert("bert_untied", 42, untied=True)
    distilbert()
    electra_generator()
    roberta()
    xlm_roberta()
    modernbert()


if __name__ == "__main__":
    main()
