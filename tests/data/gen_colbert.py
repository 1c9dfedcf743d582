#!/usr/bin/python3
"""Writes tests/data/colbert/: PyLate (ColBERT) folders laid out as the Hub's
answerdotai/answerai-colbert-small-v1 (BERT; vocab.txt; prefixes [unused0] /
[unused1], tokens of the vocabulary) and lightonai/GTE-ModernColBERT-v1
(ModernBERT; tokenizer.json with the added tokens "[Q] " and "[D] "), each a
Transformer at the folder's root and a pylate.models.Dense.Dense in 1_Dense,
with small random weights, and expected.json: every query's and document's
token ids and vectors and the MaxSim score of every (query, document),
computed in float64 from exactly the float32 weights stored, by a
reference written from PyLate's source (PyLate cannot be installed here):
  preprocess     pylate/models/colbert.py ColBERT.preprocess: the Transformer's
                 max_seq_length is query_length or document_length less one
                 for the prefix; truncation longest_first; queries padded to it
                 ("max_length") with the mask token (ColBERT.__init__ sets
                 pad_token_id = mask_token_id) when do_query_expansion;
                 insert_prefix_token puts the prefix id after the first token
                 (attention 1, token type 0); attend_to_expansion_tokens fills
                 the attention mask with ones
  encoder        gen_pipelines.py bert_forward (modeling_bert.py) and
                 gen_encoder_pieces.py encoder (modeling_modernbert.py), every
                 row computed, keys past the attended tokens masked
  Dense          pylate/models/Dense.py Dense.forward: act(linear(x)), plus x
                 (use_residual, in == out) or residual(x) (in != out)
  encode masks   ColBERT.encode: documents keep the attended tokens not in the
                 skiplist (skiplist_mask: convert_tokens_to_ids of each
                 skiplist word, the unknown token's id for a word the
                 vocabulary lacks); expanded queries keep every token; other
                 queries the attended ones; then F.normalize(p=2, dim=1)
  scores         pylate/scores/scores.py colbert_scores: sum over the query's
                 rows of the largest dot product with a document's row
plus for rust/tests/multi_vector.rs (the crate reads no JSON): expected_queries.bin
and expected_documents.bin (the texts, NUL-terminated), expected_scores.npy
[queries, documents] and expected_document0.npy (the first document's
vectors), float32; and st_mean_norm_tokens.json: the last hidden state of every real token of
tests/data/pipelines/st_mean_norm (sentence-transformers' encode with
output_value="token_embeddings": token_emb[0 : last_mask_id + 1]).

    /usr/bin/python3 tests/data/gen_colbert.py"""
import json
import math
import os
import shutil
import string
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "colbert")
sys.path.insert(0, HERE)
from gen_pipelines import TEXTS, VOCAB, bert_forward, dump, encode, make_bert  # noqa: E402
import gen_families  # noqa: E402
from gen_families import gen_encoder_pieces, modernbert_hub_names, save_weights  # noqa: E402

torch.set_default_dtype(torch.float64)

D = 16
IDENTITY = "torch.nn.modules.linear.Identity"
ACTS = {IDENTITY: lambda v: v, "torch.nn.modules.activation.Tanh": torch.tanh}

# answerai-colbert-small-v1's prefixes are tokens of BERT's vocabulary
BERT_VOCAB = VOCAB + ["[unused0]", "[unused1]"]
BERT_IDS = {t: i for i, t in enumerate(BERT_VOCAB)}

QUERIES = ["where is the big red house?", "a dog runs fast!", "hello world",
           "the quick brown fox jumps over the lazy dog and the cat sat on the mat"]
DOCUMENTS = TEXTS


def st_modules(dense_paths):
    """modules.json as PyLate writes it: the Transformer, then its Dense modules."""
    m = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]
    for i, path in enumerate(dense_paths, 1):
        m.append({"idx": i, "name": str(i), "path": path, "type": "pylate.models.Dense.Dense"})
    return m


def make_dense(g, d, layers):
    """Each (path, in, out, bias, act, use_residual) written as Dense.save does
    (config.json, model.safetensors: linear.weight, linear.bias, residual.weight);
    the float64 layers."""
    out = []
    for path, fin, fout, bias, act, residual in layers:
        t = {"linear.weight": (torch.randn(fout, fin, generator=g) / math.sqrt(fin)).float()}
        if bias:
            t["linear.bias"] = (torch.randn(fout, generator=g) * 0.2).float()
        if residual and fin != fout:
            t["residual.weight"] = (torch.randn(fout, fin, generator=g) / math.sqrt(fin)).float()
        os.makedirs(os.path.join(d, path))
        save_weights(os.path.join(d, path), t)
        config = {"in_features": fin, "out_features": fout, "bias": bias,
                  "activation_function": act}
        if residual:
            config["use_residual"] = True
        dump(os.path.join(d, path, "config.json"), config)
        out.append(({k: v.double() for k, v in t.items()}, ACTS[act], residual))
    return out


def dense_forward(layers, x):
    """Dense.forward of each module on x [rows, in]."""
    for t, act, residual in layers:
        y = act(x @ t["linear.weight"].T + t.get("linear.bias", 0))
        if residual:
            y = y + (x @ t["residual.weight"].T if "residual.weight" in t else x)
        x = y
    return x


def preprocess(ids, s, is_query):
    """ColBERT.preprocess of one text's ids ([CLS] ... [SEP], uncut): the ids,
    the attended tokens and whether truncation cut the text."""
    prefix = s["query_prefix_id"] if is_query else s["document_prefix_id"]
    room = (s["query_length"] if is_query else s["document_length"]) - (prefix is not None)
    cut = len(ids) > room
    ids = ids[:room - 1] + [ids[-1]] if cut else list(ids)  # longest_first keeps [SEP]
    attended = len(ids)
    if is_query and s["do_query_expansion"]:
        ids = ids + [s["mask_id"]] * (room - len(ids))
    if prefix is not None:
        ids = ids[:1] + [prefix] + ids[1:]
        attended += 1
    if is_query and s["attend_to_expansion_tokens"]:
        attended = len(ids)
    return ids, attended, cut


def encode_one(ids, s, is_query, forward, layers):
    """ColBERT.encode of one text: its kept ids and unit vectors [rows, dim]."""
    ids, attended, cut = preprocess(ids, s, is_query)
    h = forward(ids, attended)  # [T, D]
    if is_query and s["do_query_expansion"]:
        keep = list(range(len(ids)))
    else:
        skip = set(s["skiplist_ids"]) if not is_query else set()
        keep = [t for t in range(attended) if ids[t] not in skip]
    v = dense_forward(layers, h[keep])
    v = v / torch.clamp(v.norm(dim=1, keepdim=True), min=1e-12)
    return [ids[t] for t in keep], v, cut


def expected(d, s, forward, layers, queries, documents):
    """expected.json: the settings, each side's ids and vectors, the scores."""
    exp = {"dim": layers[-1][0]["linear.weight"].shape[0], "settings": {
        k: s[k] for k in ("query_length", "document_length", "attend_to_expansion_tokens",
                          "do_query_expansion")}}
    sides = {}
    for name, items, is_query in (("queries", queries, True), ("documents", documents, False)):
        out = [encode_one(ids, s, is_query, forward, layers) for _, ids in items]
        sides[name] = [v for _, v, _ in out]
        exp[name] = {"texts": [t for t, _ in items], "ids": [i for i, _, _ in out],
                     "vectors": [[[float(x) for x in row] for row in v] for _, v, _ in out],
                     "truncated": sum(c for _, _, c in out)}
    exp["scores"] = [[float((q @ doc.T).max(1).values.sum()) for doc in sides["documents"]]
                     for q in sides["queries"]]
    dump(os.path.join(d, "expected.json"), exp)
    for name in ("queries", "documents"):
        with open(os.path.join(d, f"expected_{name}.bin"), "wb") as f:
            f.write(b"".join(t.encode() + b"\0" for t in exp[name]["texts"]))
    np.save(os.path.join(d, "expected_scores.npy"), np.array(exp["scores"], dtype=np.float32))
    np.save(os.path.join(d, "expected_document0.npy"),
            sides["documents"][0].numpy().astype(np.float32))


def settings_file(d, s, skiplist, extra=None):
    """config_sentence_transformers.json as ColBERT.save writes it."""
    config = {"__version__": {"sentence_transformers": "4.0.2", "pylate": "1.2.0"},
              "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "MaxSim",
              "query_prefix": s["query_prefix"], "document_prefix": s["document_prefix"],
              "query_length": s["query_length"], "document_length": s["document_length"],
              "attend_to_expansion_tokens": s["attend_to_expansion_tokens"],
              "skiplist_words": skiplist}
    config.update(extra or {})
    dump(os.path.join(d, "config_sentence_transformers.json"), config)


# ---- As answerai-colbert-small-v1 (BERT) ---------------------------------------------------

def bert_folder(name, seed, s, skiplist, dense, extra=None):
    d = os.path.join(OUT, name)
    os.makedirs(d)
    w, cfg, g = make_bert(seed, D=D, P=40, V=len(BERT_VOCAB))
    w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
    cfg["architectures"] = ["BertModel"]
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(BERT_VOCAB) + "\n")
    prefixes = {BERT_IDS[s["query_prefix"]]: s["query_prefix"],
                BERT_IDS[s["document_prefix"]]: s["document_prefix"]}
    decoder = {str(i): {"content": t, "lstrip": False, "normalized": True, "rstrip": False,
                        "single_word": False, "special": False} for i, t in prefixes.items()}
    dump(os.path.join(d, "tokenizer_config.json"),
         {"added_tokens_decoder": decoder, "do_lower_case": True, "mask_token": "[MASK]",
          "pad_token": "[MASK]", "cls_token": "[CLS]", "sep_token": "[SEP]",
          "unk_token": "[UNK]", "model_max_length": 512, "tokenizer_class": "BertTokenizer"})
    dump(os.path.join(d, "sentence_bert_config.json"),
         {"max_seq_length": s["document_length"] - 1, "do_lower_case": False})
    dump(os.path.join(d, "modules.json"), st_modules([p for p, *_ in dense]))
    settings_file(d, s, skiplist, extra)
    layers = make_dense(g, d, dense)
    s.update(query_prefix_id=BERT_IDS[s["query_prefix"]], mask_id=BERT_IDS["[MASK]"],
             document_prefix_id=BERT_IDS[s["document_prefix"]],
             skiplist_ids=[BERT_IDS.get(t, BERT_IDS["[UNK]"]) for t in skiplist])

    def forward(ids, attended):
        return bert_forward(w, cfg, ids, [0] * len(ids), keys=attended)[0]
    texts = [(t, encode(t)[0]) for t in QUERIES], [(t, encode(t)[0]) for t in DOCUMENTS]
    expected(d, s, forward, layers, *texts)


def bert_settings(**changes):
    s = {"query_prefix": "[unused0]", "document_prefix": "[unused1]", "query_length": 12,
         "document_length": 14, "attend_to_expansion_tokens": False, "do_query_expansion": True}
    s.update(changes)
    return s


# ---- As GTE-ModernColBERT-v1 (ModernBERT) ---------------------------------------------------

def modernbert_folder(name, seed, s):
    """ModernBERT (4 layers, local window 16) with the tokenizer of
    gen_families.modernbert_tokenizer_source plus "[Q] " and "[D] " added after
    its special tokens, as PyLate's add_tokens saves them; texts from its
    reference cases (ids from the Rust tokenizers library)."""
    source = gen_families.modernbert_tokenizer_source()
    with open(source[0]) as f:
        tok = json.load(f)
    n = source[2]
    for i, t in enumerate((s["query_prefix"], s["document_prefix"])):
        tok["added_tokens"].append({"id": n + i, "content": t, "single_word": False,
                                    "lstrip": False, "rstrip": False, "normalized": True,
                                    "special": False})
    V = n + 2
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(gen_families.MODERNBERT, d_model=D, d_ff=2 * D, attn_window=16)
    g = torch.Generator().manual_seed(seed)
    W = gen_encoder_pieces.random_weights(c, g)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W64 = {k: v.double() for k, v in W.items()}
    d = os.path.join(OUT, name)
    os.makedirs(d)
    ids = {t["content"]: t["id"] for t in tok["added_tokens"]}
    dump(os.path.join(d, "config.json"),
         {"model_type": "modernbert", "architectures": ["ModernBertModel"], "vocab_size": V,
          "hidden_size": D, "intermediate_size": 2 * D, "num_hidden_layers": 4,
          "num_attention_heads": gen_families.H, "hidden_activation": "gelu", "norm_eps": 1e-5,
          "norm_bias": False, "attention_bias": False, "mlp_bias": False,
          "max_position_embeddings": 64, "global_rope_theta": 1000.0, "local_rope_theta": 50.0,
          "local_attention": 16, "global_attn_every_n_layers": 3,
          "pad_token_id": ids["[PAD]"], "cls_token_id": ids["[CLS]"], "sep_token_id": ids["[SEP]"],
          "bos_token_id": ids["[CLS]"], "eos_token_id": ids["[SEP]"]})
    save_weights(d, modernbert_hub_names(W, prefix=""))
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 64,
          "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
          "mask_token": "[MASK]", "unk_token": "[UNK]"})
    dump(os.path.join(d, "sentence_bert_config.json"),
         {"max_seq_length": s["document_length"] - 1, "do_lower_case": False})
    dump(os.path.join(d, "modules.json"), st_modules(["1_Dense"]))
    skiplist = list(string.punctuation)
    settings_file(d, s, skiplist)
    layers = make_dense(g, d, [("1_Dense", D, 12, False, IDENTITY, False)])
    vocab = dict(tok["model"]["vocab"], **ids)
    s.update(query_prefix_id=ids[s["query_prefix"]], document_prefix_id=ids[s["document_prefix"]],
             mask_id=ids["[MASK]"], skiplist_ids=[vocab.get(t, ids["[UNK]"]) for t in skiplist])

    def forward(token_ids, attended):
        x = W64["embed.token.weight"][torch.tensor(token_ids)][None]  # [1, T, D]
        with torch.no_grad():
            return gen_encoder_pieces.encoder(c, W64, x, [attended])[0][0]
    cases = [(t, i) for t, _, i in gen_families.short_cases(source[3], 40)[0]]
    queries = [c for c in cases if len(c[1]) <= 8][:3] + [max(cases, key=lambda c: len(c[1]))]
    documents = [c for c in cases if any(ch in c[0] for ch in string.punctuation)][:4]
    documents.append(max(cases, key=lambda c: len(c[1])))
    expected(d, s, forward, layers, queries, documents)


# ---- The last hidden state of an embedding pipeline --------------------------------------------

def st_mean_norm_tokens():
    """tests/data/pipelines/st_mean_norm's weights (gen_pipelines.st_mean_norm:
    make_bert(1), max_seq_length 12) on its texts: every real token's row."""
    w, cfg, _ = make_bert(1)
    out = {"texts": TEXTS, "ids": [], "vectors": []}
    for t in TEXTS:
        ids, types, _ = encode(t, max_len=12)
        out["ids"].append(ids)
        out["vectors"].append([[float(x) for x in row] for row in bert_forward(w, cfg, ids, types)[0]])
    dump(os.path.join(OUT, "st_mean_norm_tokens.json"), out)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    one = [("1_Dense", D, 8, False, IDENTITY, False)]
    bert_folder("answerai_like", 41, bert_settings(), list(string.punctuation), one)
    # attended expansion, a custom skiplist (a word the vocabulary lacks: [UNK]'s id),
    # two Dense modules with bias, Tanh and both kinds of residual
    two = [("1_Dense", D, D, True, "torch.nn.modules.activation.Tanh", True),
           ("2_Dense", D, 8, False, IDENTITY, True)]
    bert_folder("attend_residual", 42, bert_settings(attend_to_expansion_tokens=True),
                ["the", ".", "zebra"], two)
    bert_folder("no_expansion", 43, bert_settings(do_query_expansion=False), [".", "?"], one,
                {"do_query_expansion": False})
    modernbert_folder("modernbert_like", 44,
                      {"query_prefix": "[Q] ", "document_prefix": "[D] ", "query_length": 12,
                       "document_length": 16, "attend_to_expansion_tokens": False,
                       "do_query_expansion": True})
    st_mean_norm_tokens()
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("answerai_like\nattend_residual\nno_expansion\nmodernbert_like\n")


if __name__ == "__main__":
    main()
