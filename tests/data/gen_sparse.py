#!/usr/bin/python3
"""Writes tests/data/sparse/: SPLADE folders laid out as the Hugging Face Hub
lays out the three kinds (small random weights under the real tensor names,
gen_pipelines.py's WordPiece vocabulary), and expected.json: each text's
sparse vector over the vocabulary, dense [V], computed in float64 from
exactly the float32 weights stored. transformers and sentence-transformers
cannot be installed here, so each reference follows the upstream source it
names:
  bert_forward, distilbert forward
              gen_pipelines.py / gen_families.py (modeling_bert.py BertModel,
              modeling_distilbert.py DistilBertModel)
  bert_mlm_logits
              transformers/models/bert/modeling_bert.py BertLMPredictionHead:
              BertPredictionHeadTransform (dense, gelu, LayerNorm), decoder
              tied to bert.embeddings.word_embeddings, + cls.predictions.bias
  distilbert_mlm_logits
              modeling_distilbert.py DistilBertForMaskedLM.forward:
              vocab_transform, activation (gelu), vocab_layer_norm,
              vocab_projector tied to the word embeddings, its bias
  splade_pool sentence_transformers/sparse_encoder/models/SpladePooling.py
              SpladePooling.forward: logits * mask, relu, log1p (a second
              log1p for activation_function "log1p_relu"), max or sum over the
              sequence
  static      sentence_transformers/sparse_encoder/models/SparseStaticEmbedding.py
              SparseStaticEmbedding.forward (token presence scattered from the
              ids of tokenize(): add_special_tokens=False, times weight)
  routes      sentence_transformers/models/Router.py Router.forward (the
              "query" route for encode_query, "document" for encode_document)
  top_k       sentence_transformers/util/tensor.py select_max_active_dims (the
              k largest by absolute value)
Folders:
  splade_v3   as naver/splade-v3: BertForMaskedLM at the root, modules.json
              MLMTransformer + 1_SpladePooling (max, relu), sentence_bert_config.json
              (max_seq_length: all 32 positions, as splade-v3's 512 of 512)
  splade_sum  the same layout, sum pooling and max_seq_length 8 (a text cut)
  splade_pp   as prithivida/Splade_PP_en_v1: a bare BertForMaskedLM folder (no
              modules.json): SparseEncoder's default for it, SpladePooling max relu
  opensearch_doc_v2
              as opensearch-project/opensearch-neural-sparse-encoding-doc-v2-distill:
              DistilBertForMaskedLM at the root, idf.json, modules.json with one
              Router; router_config.json: query -> query_0_SparseStaticEmbedding
              (config.json, model.safetensors "weight", its tokenizer), document
              -> the root's MLMTransformer ("") + document_1_SpladePooling (max,
              log1p_relu)

    /usr/bin/python3 tests/data/gen_sparse.py"""
import math
import os
import shutil

import numpy as np
import torch

from gen_families import make_distilbert
from gen_pipelines import (VOCAB, bert_forward, dump, dump_for_rust, encode, floats, layer_norm,
                           make_bert, wordpiece, write_safetensors)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sparse")

torch.set_default_dtype(torch.float64)

V, D = len(VOCAB), 16
TEXTS = ["the cat sat on the mat.", "a dog runs fast!", "where is the big red house?",
         "hello world", "the quick brown fox jumps over the lazy dog"]
QUERIES = ["what colour is the sky?", "how many legs does a dog have?", "the the the"]
TOP_K = 3
ST_MLM = "sentence_transformers.sparse_encoder.models.MLMTransformer"
ST_SPLADE = "sentence_transformers.sparse_encoder.models.SpladePooling"
ST_STATIC = "sentence_transformers.sparse_encoder.models.SparseStaticEmbedding"
ST_ROUTER = "sentence_transformers.models.Router"


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


# ---- Heads and pooling -------------------------------------------------------------------

def bert_mlm_logits(w, x, eps):
    """BertLMPredictionHead: decoder(LayerNorm(gelu(dense(x)))) + bias, [T, V]."""
    def W(name):
        return w[name].double()
    h = gelu(x @ W("cls.predictions.transform.dense.weight").T
             + W("cls.predictions.transform.dense.bias"))
    h = layer_norm(h, W("cls.predictions.transform.LayerNorm.weight"),
                   W("cls.predictions.transform.LayerNorm.bias"), eps)
    return h @ W("bert.embeddings.word_embeddings.weight").T + W("cls.predictions.bias")


def distilbert_mlm_logits(w, x):
    """DistilBertForMaskedLM: vocab_projector(vocab_layer_norm(gelu(vocab_transform(x))))."""
    def W(name):
        return w[name].double()
    h = gelu(x @ W("vocab_transform.weight").T + W("vocab_transform.bias"))
    h = layer_norm(h, W("vocab_layer_norm.weight"), W("vocab_layer_norm.bias"), 1e-12)
    return h @ W("distilbert.embeddings.word_embeddings.weight").T + W("vocab_projector.bias")


def splade_pool(logits, strategy, activation):
    """SpladePooling.forward on one sequence's real tokens, logits [T, V] -> [V]."""
    s = torch.log1p(torch.relu(logits))
    if activation == "log1p_relu":
        s = torch.log1p(s)
    return s.max(0)[0] if strategy == "max" else s.sum(0)


def static_embedding(weight, text):
    """SparseStaticEmbedding.forward: weight where a token of the text is."""
    out = torch.zeros(V)
    for i in wordpiece(text):
        out[i] = weight[i].double()
    return out


def top_k(dense, k):
    """select_max_active_dims: the k largest |values| kept, the others 0;
    the k-th must stand clear of the next so float32 cannot reorder them."""
    order = sorted(range(len(dense)), key=lambda i: (-abs(dense[i]), i))
    assert dense[order[k]] == 0 or abs(dense[order[k - 1]]) - abs(dense[order[k]]) > 1e-4, \
        "a near tie at top-k"
    return sorted(i for i in order[:k] if dense[i] != 0)


# ---- Folders -----------------------------------------------------------------------------

def folder(name):
    d = os.path.join(OUT, name)
    os.makedirs(d)
    return d


def write_tokenizer(d):
    """vocab.txt with BertTokenizer's files, as the Hub's BERT folders have them."""
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    dump(os.path.join(d, "tokenizer_config.json"),
         {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})
    dump(os.path.join(d, "special_tokens_map.json"),
         {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]",
          "sep_token": "[SEP]", "unk_token": "[UNK]"})


def save_weights(d, w):
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: v.numpy().astype(np.float32) for k, v in w.items()})


def bert_for_masked_lm(seed):
    """BertForMaskedLM's tensors (no pooler: add_pooling_layer=False; the
    decoder tied, so only the embeddings are stored), its config, forward."""
    w, cfg, g = make_bert(seed, D=D, V=V)
    w = {"bert." + k: v for k, v in w.items() if not k.startswith("pooler.")}
    w["cls.predictions.transform.dense.weight"] = (torch.randn(D, D, generator=g) * 0.4).float()
    w["cls.predictions.transform.dense.bias"] = (torch.randn(D, generator=g) * 0.1).float()
    w["cls.predictions.transform.LayerNorm.weight"] = \
        (1 + torch.randn(D, generator=g) * 0.1).float()
    w["cls.predictions.transform.LayerNorm.bias"] = (torch.randn(D, generator=g) * 0.1).float()
    w["cls.predictions.bias"] = (torch.randn(V, generator=g) * 0.5 - 2.0).float()
    cfg["architectures"] = ["BertForMaskedLM"]

    def logits(ids):
        x, _ = bert_forward(w, cfg, ids, [0] * len(ids), prefix="bert.")
        return bert_mlm_logits(w, x, cfg["layer_norm_eps"])
    return w, cfg, logits


def sparse_encoder_files(d, strategy, activation, max_seq_length):
    dump(os.path.join(d, "modules.json"),
         [{"idx": 0, "name": "0", "path": "", "type": ST_MLM},
          {"idx": 1, "name": "1", "path": "1_SpladePooling", "type": ST_SPLADE}])
    dump(os.path.join(d, "sentence_bert_config.json"),
         {"max_seq_length": max_seq_length, "do_lower_case": False})
    dump(os.path.join(d, "1_SpladePooling", "config.json"),
         {"pooling_strategy": strategy, "activation_function": activation,
          "word_embedding_dimension": V})
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"model_type": "SparseEncoder",
          "__version__": {"sentence_transformers": "5.0.0", "transformers": "4.50.0",
                          "pytorch": "2.6.0"},
          "prompts": {"query": "", "document": ""}, "default_prompt_name": None,
          "similarity_fn_name": "dot"})


def expected(d, texts, vectors, extra=None):
    exp = {"texts": texts, "vocab_size": V, "dense": [floats(v) for v in vectors],
           "top_k": TOP_K, "top_k_indices": [top_k(v.tolist(), TOP_K) for v in vectors]}
    exp.update(extra or {})
    dump(os.path.join(d, "expected.json"), exp)
    dump_for_rust(d, texts, [floats(v) for v in vectors])


def splade_encoder(name, seed, strategy, max_seq_length):
    d = folder(name)
    w, cfg, logits = bert_for_masked_lm(seed)
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d)
    sparse_encoder_files(d, strategy, "relu", max_seq_length)
    vectors, ids = [], []
    for t in TEXTS:
        i, _, _ = encode(t, max_len=max_seq_length)
        ids.append(i)
        vectors.append(splade_pool(logits(i), strategy, "relu"))
    expected(d, TEXTS, vectors, {"ids": ids})


def splade_pp():
    """A bare BertForMaskedLM: SparseEncoder._load_auto_model gives it
    MLMTransformer + SpladePooling("max") (activation relu)."""
    d = folder("splade_pp")
    w, cfg, logits = bert_for_masked_lm(32)
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d)
    expected(d, TEXTS, [splade_pool(logits(encode(t)[0]), "max", "relu") for t in TEXTS])


def opensearch_doc_v2():
    d = folder("opensearch_doc_v2")
    w, cfg, g, forward = make_distilbert(33, V, prefix="distilbert.")
    w["vocab_transform.weight"] = (torch.randn(D, D, generator=g) * 0.4).float()
    w["vocab_transform.bias"] = (torch.randn(D, generator=g) * 0.1).float()
    w["vocab_layer_norm.weight"] = (1 + torch.randn(D, generator=g) * 0.1).float()
    w["vocab_layer_norm.bias"] = (torch.randn(D, generator=g) * 0.1).float()
    w["vocab_projector.bias"] = (torch.randn(V, generator=g) * 0.5 - 2.0).float()
    cfg["architectures"] = ["DistilBertForMaskedLM"]
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d)
    dump(os.path.join(d, "sentence_bert_config.json"),
         {"max_seq_length": 32, "do_lower_case": False})
    # the inference-free query side: an idf-like weight, 0 for the specials
    idf = (torch.rand(V, generator=g) * 5).float()
    idf[:5] = 0
    dump(os.path.join(d, "idf.json"), {t: float(idf[i]) for i, t in enumerate(VOCAB)})
    q = os.path.join(d, "query_0_SparseStaticEmbedding")
    os.makedirs(q)
    write_safetensors(os.path.join(q, "model.safetensors"), {"weight": idf.numpy()})
    dump(os.path.join(q, "config.json"), {"frozen": True})
    write_tokenizer(q)
    dump(os.path.join(d, "document_1_SpladePooling", "config.json"),
         {"pooling_strategy": "max", "activation_function": "log1p_relu",
          "word_embedding_dimension": V})
    dump(os.path.join(d, "modules.json"), [{"idx": 0, "name": "0", "path": "", "type": ST_ROUTER}])
    dump(os.path.join(d, "router_config.json"),
         {"types": {"query_0_SparseStaticEmbedding": ST_STATIC, "": ST_MLM,
                    "document_1_SpladePooling": ST_SPLADE},
          "structure": {"query": ["query_0_SparseStaticEmbedding"],
                        "document": ["", "document_1_SpladePooling"]},
          "parameters": {"default_route": "document", "allow_empty_key": True}})
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"model_type": "SparseEncoder", "prompts": {"query": "", "document": ""},
          "default_prompt_name": None, "similarity_fn_name": "dot"})
    docs = []
    for t in TEXTS:
        ids = encode(t)[0]
        docs.append(splade_pool(distilbert_mlm_logits(w, forward(ids)), "max", "log1p_relu"))
    queries = [static_embedding(idf, t) for t in QUERIES]
    np.save(os.path.join(d, "expected_query_out.npy"),
            np.array([floats(v) for v in queries], dtype=np.float32))  # rust/tests/sparse.rs
    expected(d, TEXTS, docs,
             {"queries": QUERIES, "query_dense": [floats(v) for v in queries],
              "query_top_k_indices": [top_k(v.tolist(), TOP_K) for v in queries],
              "scores": [[float(a @ b) for b in docs] for a in queries]})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    splade_encoder("splade_v3", 31, "max", 32)
    splade_encoder("splade_sum", 34, "sum", 8)
    splade_pp()
    opensearch_doc_v2()


if __name__ == "__main__":
    main()
