#!/usr/bin/python3
"""Writes tests/data/families/: one Hugging Face folder (model.safetensors,
config.json) per architecture family beside BERT, with small random weights
under the family's real tensor names, and expected.json: token ids and the
last_hidden_state of each sequence, computed in float64 from exactly the
float32 weights stored by references that follow the upstream source
(transformers cannot be installed here):
  roberta     transformers/models/roberta/modeling_roberta.py: RobertaEmbeddings
              with create_position_ids_from_input_ids (positions from
              padding_idx + 1, a padding id inside a sequence keeps
              padding_idx), one token type; the layers are BertLayer's
              (gen_pipelines.py bert_forward). Saved under "roberta." as a
              RobertaForMaskedLM (its lm_head.* ignored).
  distilbert  transformers/models/distilbert/modeling_distilbert.py: Embeddings
              (word + position, LayerNorm eps 1e-12), MultiHeadSelfAttention
              (q / sqrt(dim_per_head), softmax, out_lin), FFN (lin1, gelu,
              lin2), TransformerBlock (sa_layer_norm(sa + x),
              output_layer_norm(ffn + sa)); DistilBertConfig's keys dim,
              hidden_dim, n_layers, n_heads, activation.
  modernbert  transformers/models/modernbert/modeling_modernbert.py through the
              float64 reference of tests/encoder_pieces/gen_encoder_pieces.py (encoder: each
              piece named there), on ModernBertEmbeddings' tok_embeddings rows;
              saved under the Hub's names as a ModernBertForMaskedLM ("model.",
              its head.* and decoder.* ignored): Wqkv = q | k | v, Wi = the
              activated half | the multiplied one (ModernBertMLP: input, gate =
              Wi(h).chunk(2); act(input) * gate), layer 0 without attn_norm;
              config.json with ModernBertConfig's keys (4 layers: 1 and 2 local
              with a window of 4, rotary bases 1000 global and 50 local).
  nomic_bert  nomic's modeling_hf_nomic_bert.py (nomic-ai/contrastors) through
              gen_encoder_pieces.py's float64 reference: NomicBertEmbeddings (word +
              token type 0), NomicBertModel.emb_ln, NomicBertBlock with
              prenorm false (norm1(x + attn), norm2(x + mlp)), NomicBertAttention
              (Wqkv = q | k | v, rotary on head_dim * rotary_emb_fraction
              dimensions: NomicBertRotaryEmbedding, apply_rotary_emb),
              NomciBertGatedMLP (fc2(fc11(x) * silu(fc12(x))), its width n_inner
              rounded up to a multiple of 256); NomicBertConfig's keys (n_embd,
              n_head, ...), no biases but the LayerNorms'. nomic_bert: half of
              each head rotated, interleaved pairs; nomic_st: laid out as
              nomic-embed-text-v1.5 (whole heads, rotate_half pairs, base 1000,
              rotary_scaling_factor null, mean pooling, its search_query: /
              search_document: prompts, tokenizer_json/bert_uncased linked; the
              texts' ids are that file's reference ids).
  gte         Alibaba-NLP/new-impl modeling.py through gen_encoder_pieces.py's float64
              reference: NewEmbeddings (word embeddings, LayerNorm), NewLayer
              (attn_ln(x + o_proj(attn)), mlp_ln(x + mlp)), NewAttention
              (qkv_proj = q | k | v, apply_rotary_pos_emb with rotate_half),
              NewGatedMLP (up, gate = up_gate_proj(x).split: down_proj(gelu(gate)
              * up), up_gate_proj without a bias), NTKScalingRotaryEmbedding
              (rope_scaling ntk, factor 2: inv_freq = 1 / (theta a)^(2i/d) /
              a^(2/d), written here, not through the library's parameters);
              gte_st: laid out as gte-base-en-v1.5 (CLS pooling,
              tokenizer_json/bert_uncased linked).
  jina_bert   jinaai/jina-bert-implementation modeling_bert.py through gen_encoder_pieces.py's
              float64 reference: JinaBertEmbeddings (word + token type 0, LayerNorm,
              no positions), ALiBi (_get_alibi_head_slopes,
              JinaBertModel.rebuild_alibi_tensor: -m_h |i - j| added to the scores),
              BERT's post-norm attention, JinaBertGLUMLP (layernorm(x + wo(gelu(h[:F])
              * h[F:])), h = gated_layers(x) without a bias); jina_st: laid out as
              jina-embeddings-v2-base-en (mean pooling, tokenizer_json/bert_uncased
              linked).
  jina_code   JinaBERT v2's code variant, jinaai/jina-bert-v2-qk-post-norm
              modeling_bert.py through gen_encoder_pieces.py's float64 reference:
              JinaBertSelfAttention's layer_norm_q / layer_norm_k on query(x) and
              key(x) (all D features, before transpose_for_scores), BertSelfOutput
              (LayerNorm(x + dense(ctx))), JinaBertLayer.forward (h =
              layer_norm_1(x + attention(x)); layer_norm_2(h + mlp(h))),
              JinaBertGLUMLP (down_layer(up * gelu(gated)), up, gated =
              up_gated_layer(h) halves, no bias); jina_code_st: laid out as
              jina-embeddings-v2-base-code (its config.json's keys and auto_map,
              mean pooling, tokenizer_json/bert_uncased linked in place of its
              own tokenizer); jina_code_missing_norm, jina_code_norm_shape: its
              folder with layer 1's layer_norm_k.weight left out, layer 0's
              layer_norm_q.weight cut to 8 values (refused).
and model folders for tf_pipeline_load (tokenizer and head included), with
the ids and scores expected:
  roberta_classifier, roberta_cross_encoder
              RobertaForSequenceClassification: RobertaClassificationHead
              (modeling_roberta.py: out_proj(tanh(dense(h[:, 0]))), dropout
              off), softmax (TextClassificationPipeline.postprocess) or, one
              label, sigmoid (sentence-transformers CrossEncoder.predict).
              Tokenizer: tests/data/tokenizer_json/roberta's byte-level BPE
              tokenizer.json (RobertaProcessing: <s> a </s></s> b </s>) with
              its ids renumbered as RoBERTa's (<s> 0, <pad> 1, </s> 2, <unk> 3,
              the rest in order), written once (roberta_tokenizer.json) and
              linked from each RoBERTa folder; the ids expected are that file's
              reference ids (its cases.json, from the Rust tokenizers library)
              mapped the same way.
  distilbert_classifier
              DistilBertForSequenceClassification.forward (modeling_distilbert.py:
              classifier(ReLU(pre_classifier(h[:, 0]))), dropout off); vocab.txt
              WordPiece as in gen_pipelines.py.
  electra, electra_classifier
              transformers/models/electra/modeling_electra.py: ElectraModel with
              embedding_size = hidden_size (BertModel's embeddings and layers, no
              pooler; an ElectraForPreTraining discriminator under "electra."),
              ElectraClassificationHead (out_proj(gelu(dense(h[:, 0])))).
  mpnet, mpnet_st, mpnet_classifier
              transformers/models/mpnet/modeling_mpnet.py (mpnet_forward):
              MPNetEmbeddings (word + position, positions from
              create_position_ids_from_input_ids with padding_idx 1, no token
              types, LayerNorm), MPNetEncoder.compute_position_bias (one
              relative_attention_bias [32, H] for every layer, buckets of
              relative_position_bucket through tests/encoder_pieces/gen_encoder_pieces.py's
              relative_bucket), MPNetSelfAttention (q k^T / sqrt(d_k) + bias,
              softmax, o), MPNetAttention (LayerNorm(o + x)), MPNetIntermediate,
              MPNetOutput, MPNetPooler. mpnet: an MPNetForMaskedLM under "mpnet."
              (lm_head.* ignored, no pooler); mpnet_st: a sentence-transformers
              folder laid out as all-mpnet-base-v2 (MPNetModel with its pooler,
              mean pooling, Normalize, max_seq_length 384 of 514 positions, a
              WordPiece tokenizer.json with <s> </s> and RobertaProcessing, ids
              from gen_pipelines.py's wordpiece shifted past MPNet's four
              specials as MPNet's vocabulary is BERT's shifted; a text of more
              than 384 tokens cut); mpnet_classifier:
              MPNetForSequenceClassification, MPNetClassificationHead
              (out_proj(tanh(dense(h[:, 0])))), softmax.
  electra_small
              the same ElectraModel with embedding_size 8 != hidden_size 16:
              ElectraEmbeddings 8 wide, then embeddings_project (nn.Linear(8, 16))
              before the layers, as electra-small's 128 -> 256.
  bert_token_classifier, roberta_token_classifier
              BertForTokenClassification / RobertaForTokenClassification
              (classifier on every token's state) with a vocab.txt or the
              renumbered byte-level BPE tokenizer, and the entities of
              transformers' pipelines/token_classification.py
              (TokenClassificationPipeline: gather_pre_entities, aggregate,
              aggregate_word(s), group_entities) by each aggregation_strategy,
              words through tokenizers' WordPiece and ByteLevel decoders
              (decoders/wordpiece.rs, byte_level.rs), the RoBERTa offsets
              tokenizers' (trim_offsets) from cases.json.

    /usr/bin/python3 tests/data/gen_families.py"""
import json
import math
import os
import shutil

import sys

import numpy as np
import torch

from gen_pipelines import (MEAN_NORMALIZE, TEXTS, VOCAB, bert_forward, dump, dump_for_rust, encode,
                           floats, layer_norm, make_bert, normalize, pool, st_modules, wordpiece,
                           write_safetensors)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "families")
sys.path.insert(0, os.path.join(HERE, "..", "encoder_pieces"))
import gen_encoder_pieces  # noqa: E402

torch.set_default_dtype(torch.float64)

V, D, H, F, L = 60, 16, 2, 32, 2
HEAD_D = 8  # the RoBERTa head folders' width: their 3745-token vocabulary is most of their size
# ids of the sequences each folder is run on; 1 is RoBERTa's padding id, here
# once inside a sequence (its position is padding_idx, the next ones go on)
SEQUENCES = [[0, 5, 17, 33, 2], [0, 40, 41, 1, 42, 9, 2], [0, 2], [0] + list(range(3, 30)) + [2]]


def save(name, w, cfg, sequences, hidden):
    """The folder, expected.json and, for the bindings' tests, the same as
    one right-padded batch: input_ids.npy, attention_mask.npy [B, T] (int32)
    and last_hidden_state.npy [B, T, D] (float32, zeros where padded)."""
    d = os.path.join(OUT, name)
    os.makedirs(d)
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: v.numpy().astype(np.float32) for k, v in w.items()})
    dump(os.path.join(d, "config.json"), cfg)
    dump(os.path.join(d, "expected.json"), {"ids": sequences, "d_model": D,
                                            "hidden": [floats(h) for h in hidden]})
    B, T = len(sequences), max(len(s) for s in sequences)
    ids, mask = np.zeros((B, T), np.int32), np.zeros((B, T), np.int32)
    out = np.zeros((B, T, D), np.float32)
    for b, (seq, h) in enumerate(zip(sequences, hidden)):
        ids[b, :len(seq)], mask[b, :len(seq)], out[b, :len(seq)] = seq, 1, h.numpy()
    for file, array in (("input_ids", ids), ("attention_mask", mask), ("last_hidden_state", out)):
        np.save(os.path.join(d, file + ".npy"), array)


def roberta_positions(ids, padding_idx):
    """create_position_ids_from_input_ids: cumsum(mask) * mask + padding_idx."""
    mask = [int(i != padding_idx) for i in ids]
    out, count = [], 0
    for m in mask:
        count += m
        out.append(count * m + padding_idx)
    return out


def roberta():
    w, cfg, g = make_bert(11, D=D, H=H, F=F, L=L, P=34)
    w = {k: v for k, v in w.items() if not k.startswith("pooler.")}  # RobertaForMaskedLM has none
    w["embeddings.token_type_embeddings.weight"] = w["embeddings.token_type_embeddings.weight"][:1]
    cfg.update({"model_type": "roberta", "architectures": ["RobertaForMaskedLM"],
                "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0,
                "eos_token_id": 2, "max_position_embeddings": 34, "layer_norm_eps": 1e-5})
    hidden = [bert_forward(w, cfg, ids, [0] * len(ids), positions=roberta_positions(ids, 1))[0]
              for ids in SEQUENCES]
    saved = {"roberta." + k: v for k, v in w.items()}
    saved["lm_head.dense.weight"] = (torch.randn(D, D, generator=g) * 0.3).float()
    save("roberta", saved, cfg, SEQUENCES, hidden)


def make_distilbert(seed, V, prefix=""):
    """Weights under DistilBERT's names, its config.json, and forward(ids) ->
    last_hidden_state [T, D] (float64)."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale=0.3):
        return (torch.randn(*shape, generator=g) * scale).float()
    P = 32
    w = {"embeddings.word_embeddings.weight": r(V, D, scale=1.0),
         "embeddings.position_embeddings.weight": r(P, D, scale=0.5),
         "embeddings.LayerNorm.weight": 1 + r(D, scale=0.1),
         "embeddings.LayerNorm.bias": r(D, scale=0.1)}
    for l in range(L):
        p = f"transformer.layer.{l}."
        for name in ("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(D, D, scale=1 / math.sqrt(D)), r(D)
        w[p + "ffn.lin1.weight"], w[p + "ffn.lin1.bias"] = r(F, D, scale=1 / math.sqrt(D)), r(F)
        w[p + "ffn.lin2.weight"], w[p + "ffn.lin2.bias"] = r(D, F, scale=1 / math.sqrt(F)), r(D)
        for norm in ("sa_layer_norm", "output_layer_norm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = 1 + r(D, scale=0.1), r(D, scale=0.1)
    cfg = {"model_type": "distilbert", "architectures": ["DistilBertModel"], "vocab_size": V,
           "dim": D, "hidden_dim": F, "n_layers": L, "n_heads": H, "activation": "gelu",
           "max_position_embeddings": P, "sinusoidal_pos_embds": False, "dropout": 0.1,
           "attention_dropout": 0.1, "pad_token_id": 0}

    def W(name):
        return w[name].double()

    def forward(ids):
        T, dk = len(ids), D // H
        x = W("embeddings.word_embeddings.weight")[torch.tensor(ids)]
        x = x + W("embeddings.position_embeddings.weight")[:T]
        x = layer_norm(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), 1e-12)
        for l in range(L):
            p = f"transformer.layer.{l}."

            def lin(name, v):
                return v @ W(p + name + ".weight").T + W(p + name + ".bias")
            q = lin("attention.q_lin", x).view(T, H, dk).transpose(0, 1) / math.sqrt(dk)
            k = lin("attention.k_lin", x).view(T, H, dk).transpose(0, 1)
            v = lin("attention.v_lin", x).view(T, H, dk).transpose(0, 1)
            ctx = (torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v).transpose(0, 1).reshape(T, D)
            sa = layer_norm(lin("attention.out_lin", ctx) + x, W(p + "sa_layer_norm.weight"),
                            W(p + "sa_layer_norm.bias"), 1e-12)
            h = lin("ffn.lin1", sa)
            h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
            x = layer_norm(lin("ffn.lin2", h) + sa, W(p + "output_layer_norm.weight"),
                           W(p + "output_layer_norm.bias"), 1e-12)
        return x
    return {prefix + k: v for k, v in w.items()}, cfg, g, forward


def distilbert():
    w, cfg, _, forward = make_distilbert(12, V)
    save("distilbert", w, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


MODERNBERT = dict(n_layers=4, position="rotary", embedding_norm=True, norm_first=True,
                  final_norm=True, bias=False, ffn_gated=True, skip_first_norm1=True,
                  rotary_base=1000.0, rotary_base_local=50.0, attn_window=4, global_every=3,
                  d_model=D, n_heads=H, d_ff=F, max_positions=64)


def modernbert_hub_names(W, prefix="model."):
    """The library's tensors (gen_encoder_pieces.tensor_names) under the Hub's names
    (LayerNorm biases where W has them: norm_bias), after prefix ("": a
    ModernBertModel as sentence-transformers saves it)."""
    out = {prefix + "embeddings.tok_embeddings.weight": W["embed.token.weight"]}

    def norm(ours, theirs):
        for part in ("weight", "bias"):
            if f"{ours}.{part}" in W:
                out[f"{prefix}{theirs}.{part}"] = W[f"{ours}.{part}"]
    norm("embed.norm", "embeddings.norm")
    norm("final_norm", "final_norm")
    for l in range(MODERNBERT["n_layers"]):
        p, hub = f"layers.{l}.", f"{prefix}layers.{l}."
        if l > 0:  # layer 0's attn_norm is nn.Identity: no tensor
            norm(p + "norm1", f"layers.{l}.attn_norm")
        out[hub + "attn.Wqkv.weight"] = torch.cat([W[p + f"attn.{n}.weight"] for n in "qkv"])
        out[hub + "attn.Wo.weight"] = W[p + "attn.out.weight"]
        norm(p + "norm2", f"layers.{l}.mlp_norm")
        out[hub + "mlp.Wi.weight"] = torch.cat([W[p + "ffn.gate.weight"], W[p + "ffn.up.weight"]])
        out[hub + "mlp.Wo.weight"] = W[p + "ffn.down.weight"]
    return out


def modernbert():
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(MODERNBERT)
    g = torch.Generator().manual_seed(14)
    W = gen_encoder_pieces.random_weights(c, g)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W64 = {k: v.double() for k, v in W.items()}
    hidden = []
    with torch.no_grad():
        for ids in SEQUENCES:
            x = W64["embed.token.weight"][torch.tensor(ids)][None]  # [1, T, D]
            hidden.append(gen_encoder_pieces.encoder(c, W64, x, [len(ids)])[0][0])
    saved = modernbert_hub_names(W)
    saved["head.dense.weight"] = (torch.randn(D, D, generator=g) * 0.3).float()
    saved["decoder.bias"] = torch.zeros(V).float()
    cfg = {"model_type": "modernbert", "architectures": ["ModernBertForMaskedLM"],
           "vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": 4,
           "num_attention_heads": H, "hidden_activation": "gelu", "norm_eps": 1e-5,
           "norm_bias": False, "attention_bias": False, "mlp_bias": False,
           "max_position_embeddings": 64, "global_rope_theta": 1000.0,
           "local_rope_theta": 50.0, "local_attention": 4, "global_attn_every_n_layers": 3,
           "pad_token_id": 1, "attention_dropout": 0.0, "embedding_dropout": 0.0,
           "mlp_dropout": 0.0, "classifier_pooling": "mean", "decoder_bias": True,
           "deterministic_flash_attn": False, "initializer_cutoff_factor": 2.0,
           "initializer_range": 0.02, "sparse_prediction": False, "tie_word_embeddings": True}
    save("modernbert", saved, cfg, SEQUENCES, hidden)


# ---- Folders for tf_pipeline_load ---------------------------------------------------

ROBERTA_TOKENIZER = os.path.join(HERE, "tokenizer_json", "roberta")


def roberta_tokenizer():
    """tokenizer.json renumbered as RoBERTa's (<s> <pad> </s> <unk> first, the
    added tokens in model.vocab too), the renumbering, and its reference
    cases."""
    with open(os.path.join(ROBERTA_TOKENIZER, "tokenizer.json")) as f:
        tok = json.load(f)
    with open(os.path.join(ROBERTA_TOKENIZER, "cases.json")) as f:
        cases = json.load(f)["cases"]
    added = {t["content"]: t["id"] for t in tok["added_tokens"]}
    first = [added[t] for t in ("<s>", "<pad>", "</s>", "<unk>")]
    n = max(max(tok["model"]["vocab"].values()), max(added.values())) + 1
    order = first + [i for i in range(n) if i not in first]
    new = {old: i for i, old in enumerate(order)}
    tok["model"]["vocab"] = {t: new[i] for t, i in tok["model"]["vocab"].items()}
    for t in tok["added_tokens"]:  # in the vocabulary too, as RoBERTa's vocab.json has them
        t["id"] = new[t["id"]]
        tok["model"]["vocab"][t["content"]] = t["id"]
    for key in ("sep", "cls"):
        tok["post_processor"][key][1] = new[tok["post_processor"][key][1]]
    tok["padding"]["pad_id"] = new[tok["padding"]["pad_id"]]
    tok["truncation"] = None  # tf_pipeline_load truncates to the model's length
    return tok, new, cases, n


ROBERTA_RENUMBERED = os.path.join(OUT, "roberta_tokenizer.json")


def roberta_tokenizer_source():
    """The renumbered RoBERTa tokenizer, written once for the folders to link
    (ROBERTA_RENUMBERED): (its path, id map, size, reference cases)."""
    tok, new, cases, n = roberta_tokenizer()
    with open(ROBERTA_RENUMBERED, "w") as f:  # compact: it is the largest file
        json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))
    return ROBERTA_RENUMBERED, new, n, cases


def linked_tokenizer_source(name):
    """tests/data/tokenizer_json/<name>'s tokenizer.json, linked, not copied,
    its ids as they are, and its reference cases (from the Rust tokenizers
    library)."""
    d = os.path.join(HERE, "tokenizer_json", name)
    with open(os.path.join(d, "tokenizer.json")) as f:
        n = len(json.load(f)["model"]["vocab"])
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)["cases"]
    return os.path.join(d, "tokenizer.json"), {i: i for i in range(n)}, n, cases


def xlmr_tokenizer_source():
    """tests/data/tokenizer_json/unigram: a SentencePiece Unigram as XLM-R's
    tokenizer.json (Precompiled, Metaspace, <s> <pad> </s> <unk> first,
    TemplateProcessing <s> a </s></s> b </s>)."""
    return linked_tokenizer_source("unigram")


def write_tokenizer(d, tok):
    """tok: a tokenizer.json to link (a path), or its JSON to write compact
    (MPNet's, which no other folder shares)."""
    path = os.path.join(d, "tokenizer.json")
    if isinstance(tok, str):
        os.symlink(os.path.relpath(tok, d), path)
        return
    with open(path, "w") as f:  # compact: it is the largest file
        json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))


def roberta_folder(name, seed, source, model_type, architecture, extra=None):
    """A RobertaModel-shaped folder (width HEAD_D, 40 positions, no pooler)
    with the tokenizer of source; the folder, weights, config, generator and
    id map."""
    tok, new, n_tokens, _ = source
    w, cfg, g = make_bert(seed, D=HEAD_D, H=H, F=F, L=L, P=40, V=n_tokens)
    w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
    w["embeddings.token_type_embeddings.weight"] = w["embeddings.token_type_embeddings.weight"][:1]
    cfg.update({"model_type": model_type, "architectures": [architecture],
                "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
                "max_position_embeddings": 40, "layer_norm_eps": 1e-5}, **(extra or {}))
    d = os.path.join(OUT, name)
    os.makedirs(d)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d, tok)
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "XLMRobertaTokenizer" if model_type == "xlm-roberta"
          else "RobertaTokenizer", "model_max_length": 38})
    return d, w, cfg, g, new


def roberta_hidden(w, cfg, ids):
    return bert_forward(w, cfg, ids, [0] * len(ids), positions=roberta_positions(ids, 1))[0]


def save_weights(d, tensors):
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: v.numpy().astype(np.float32) for k, v in tensors.items()})


def roberta_head_folder(name, seed, labels, st_object, inputs, source,
                        model_type="roberta", architecture="RobertaForSequenceClassification"):
    """inputs: (text, pair or None, reference ids) from source's cases."""
    n = len(labels)
    extra = {"id2label": {str(i): l for i, l in enumerate(labels)},
             "label2id": {l: i for i, l in enumerate(labels)}}
    if st_object:
        extra["sentence_transformers"] = {"activation_fn": "torch.nn.modules.activation.Sigmoid"}
    d, w, cfg, g, new = roberta_folder(name, seed, source, model_type, architecture, extra)
    E = HEAD_D
    head = {"classifier.dense.weight": (torch.randn(E, E, generator=g) / math.sqrt(E)).float(),
            "classifier.dense.bias": (torch.randn(E, generator=g) * 0.2).float(),
            "classifier.out_proj.weight": (torch.randn(n, E, generator=g) * 0.8).float(),
            "classifier.out_proj.bias": (torch.randn(n, generator=g) * 0.3).float()}
    save_weights(d, {**{"roberta." + k: v for k, v in w.items()}, **head})
    hd = {k: v.double() for k, v in head.items()}
    out, ids = [], []
    for text, pair, ref in inputs:
        i = [new[t] for t in ref]
        x = roberta_hidden(w, cfg, i)
        h = torch.tanh(x[0] @ hd["classifier.dense.weight"].T + hd["classifier.dense.bias"])
        logits = h @ hd["classifier.out_proj.weight"].T + hd["classifier.out_proj.bias"]
        out.append(torch.sigmoid(logits) if n == 1 else torch.softmax(logits, 0))
        ids.append(i)
    dump(os.path.join(d, "expected.json"),
         {"inputs": [[t, p] for t, p, _ in inputs], "labels": labels, "ids": ids,
          "out": [floats(v) for v in out]})
    dump_for_rust(d, [[t, p] for t, p, _ in inputs], [floats(v) for v in out])


def xlmr_sentence_encoder(inputs):
    """XLMRobertaModel + mean pooling + Normalize (as intfloat/multilingual-e5:
    prompts "query: " and "passage: ", none by default), max_seq_length 32."""
    d, w, cfg, _, _ = roberta_folder("xlmr_st", 23, xlmr_tokenizer_source(), "xlm-roberta",
                                     "XLMRobertaModel")
    save_weights(d, w)
    dump(os.path.join(d, "modules.json"), st_modules(*MEAN_NORMALIZE))
    dump(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": 32, "do_lower_case": False})
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": HEAD_D, "pooling_mode_mean_tokens": True})
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": None,
          "similarity_fn_name": "cosine"})
    vecs = [normalize(pool(roberta_hidden(w, cfg, ids), "mean")) for _, _, ids in inputs]
    texts = [t for t, _, _ in inputs]
    dump(os.path.join(d, "expected.json"), {"texts": texts, "ids": [i for _, _, i in inputs],
                                            "dim": HEAD_D, "embeddings": [floats(v) for v in vecs]})
    dump_for_rust(d, texts, [floats(v) for v in vecs])


def short_cases(cases, max_ids=20):
    """Single texts and pairs of cases (at most max_ids ids)."""
    singles = [(c["text"], None, c["ids"]) for c in cases
               if "pair" not in c and 4 < len(c["ids"]) <= max_ids and c["text"].isascii()]
    pairs = [(c["text"], c["pair"], c["ids"]) for c in cases
             if "pair" in c and len(c["ids"]) <= max_ids]
    return singles, pairs


def wordpiece_classifier(name, w, cfg, forward, dense, act, out_name, seed):
    """A *ForSequenceClassification folder with gen_pipelines.py's vocab.txt:
    logits = out_name(act(dense(h[:, 0]))), softmax over two labels."""
    labels = ["negative", "positive"]
    g = torch.Generator().manual_seed(seed)
    head = {dense + ".weight": (torch.randn(D, D, generator=g) / math.sqrt(D)).float(),
            dense + ".bias": (torch.randn(D, generator=g) * 0.2).float(),
            out_name + ".weight": (torch.randn(2, D, generator=g) * 0.8).float(),
            out_name + ".bias": (torch.randn(2, generator=g) * 0.3).float()}
    cfg.update({"id2label": {str(i): l for i, l in enumerate(labels)},
                "label2id": {l: i for i, l in enumerate(labels)}})
    d = os.path.join(OUT, name)
    os.makedirs(d)
    save_weights(d, {**w, **head})
    dump(os.path.join(d, "config.json"), cfg)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    dump(os.path.join(d, "tokenizer_config.json"), {"do_lower_case": True})
    texts = ["i liked the movie.", "the movie was bad.", "it was not good."]
    hd = {k: v.double() for k, v in head.items()}
    out, ids = [], []
    for text in texts:
        i, _, _ = encode(text)
        h = act(forward(i)[0] @ hd[dense + ".weight"].T + hd[dense + ".bias"])
        out.append(torch.softmax(h @ hd[out_name + ".weight"].T + hd[out_name + ".bias"], 0))
        ids.append(i)
    dump(os.path.join(d, "expected.json"),
         {"inputs": [[t, None] for t in texts], "labels": labels, "ids": ids,
          "out": [floats(v) for v in out]})
    dump_for_rust(d, texts, [floats(v) for v in out])


def distilbert_classifier():
    """DistilBertForSequenceClassification: classifier(ReLU(pre_classifier(h[:, 0])))."""
    w, cfg, _, forward = make_distilbert(13, len(VOCAB), prefix="distilbert.")
    cfg["architectures"] = ["DistilBertForSequenceClassification"]
    wordpiece_classifier("distilbert_classifier", w, cfg, forward, "pre_classifier", torch.relu,
                         "classifier", 14)


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def make_electra(seed):
    """ElectraModel with embedding_size = hidden_size (no embeddings_project):
    BertModel's embeddings and layers, no pooler; forward(ids) ->
    last_hidden_state (float64)."""
    w, cfg, g = make_bert(seed, D=D, H=H, F=F, L=L, P=32)
    w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
    cfg.update({"model_type": "electra", "embedding_size": D, "layer_norm_eps": 1e-12})
    return w, cfg, g, lambda ids: bert_forward(w, cfg, ids, [0] * len(ids))[0]


def electra():
    """An ElectraForPreTraining discriminator under "electra." (its
    discriminator_predictions ignored)."""
    w, cfg, g, forward = make_electra(15)
    cfg["architectures"] = ["ElectraForPreTraining"]
    saved = {"electra." + k: v for k, v in w.items()}
    saved["discriminator_predictions.dense.weight"] = (torch.randn(D, D, generator=g)).float()
    saved["discriminator_predictions.dense_prediction.weight"] = (torch.randn(1, D, generator=g)).float()
    sequences = [[i % len(VOCAB) for i in seq] for seq in SEQUENCES]
    save("electra", saved, cfg, sequences, [forward(ids) for ids in sequences])


E_SMALL = 8  # electra_small's embedding_size, half its hidden_size as electra-small's 128 of 256


def electra_small():
    """ElectraForPreTraining with embedding_size E_SMALL != hidden_size D
    (modeling_electra.py: ElectraEmbeddings' word, position and token-type
    embeddings and LayerNorm E wide, then ElectraModel's embeddings_project,
    nn.Linear(E, D), before the encoder)."""
    w, cfg, g, _ = make_electra(18)
    V, P = w["embeddings.word_embeddings.weight"].shape[0], cfg["max_position_embeddings"]
    w["embeddings.word_embeddings.weight"] = torch.randn(V, E_SMALL, generator=g).float()
    w["embeddings.position_embeddings.weight"] = (torch.randn(P, E_SMALL, generator=g) * 0.5).float()
    w["embeddings.token_type_embeddings.weight"] = (torch.randn(2, E_SMALL, generator=g) * 0.5).float()
    w["embeddings.LayerNorm.weight"] = (1 + torch.randn(E_SMALL, generator=g) * 0.1).float()
    w["embeddings.LayerNorm.bias"] = (torch.randn(E_SMALL, generator=g) * 0.1).float()
    w["embeddings_project.weight"] = (torch.randn(D, E_SMALL, generator=g) / math.sqrt(E_SMALL)).float()
    w["embeddings_project.bias"] = (torch.randn(D, generator=g) * 0.1).float()
    cfg.update({"architectures": ["ElectraForPreTraining"], "embedding_size": E_SMALL})
    saved = {"electra." + k: v for k, v in w.items()}
    saved["discriminator_predictions.dense.weight"] = (torch.randn(D, D, generator=g)).float()
    saved["discriminator_predictions.dense_prediction.weight"] = (torch.randn(1, D, generator=g)).float()
    sequences = [[i % len(VOCAB) for i in seq] for seq in SEQUENCES]
    save("electra_small", saved, cfg, sequences,
         [bert_forward(w, cfg, ids, [0] * len(ids))[0] for ids in sequences])
    # for check_embed.sh: gen_pipelines.py's vocab.txt, and the mean over the
    # tokens of a text (tfenc embed's default pooling)
    d = os.path.join(OUT, "electra_small")
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    text = "the cats sat on the mats"
    ids, _, _ = encode(text)
    dump(os.path.join(d, "expected_embed.json"),
         {"text": text, "ids": ids,
          "mean": floats(pool(bert_forward(w, cfg, ids, [0] * len(ids))[0], "mean"))})


def electra_classifier():
    """ElectraForSequenceClassification: ElectraClassificationHead,
    out_proj(gelu(dense(h[:, 0])))."""
    w, cfg, _, forward = make_electra(16)
    cfg["architectures"] = ["ElectraForSequenceClassification"]
    wordpiece_classifier("electra_classifier", {"electra." + k: v for k, v in w.items()}, cfg,
                         forward, "classifier.dense", gelu, "classifier.out_proj", 17)


# ---- NomicBERT (modeling_hf_nomic_bert.py) ----------------------------------------------

NOMIC_F = 256  # NomciBertGatedMLP rounds n_inner up to a multiple of 256


def nomic_hub_names(W, L):
    """The library's tensors (gen_encoder_pieces.tensor_names) under NomicBertModel's
    names: fc11 is the multiplied half (ffn.up), fc12 the activated one."""
    out = {"embeddings.word_embeddings.weight": W["embed.token.weight"],
           "embeddings.token_type_embeddings.weight": W["embed.token_type.weight"],
           "emb_ln.weight": W["embed.norm.weight"], "emb_ln.bias": W["embed.norm.bias"]}
    for l in range(L):
        p, hub = f"layers.{l}.", f"encoder.layers.{l}."
        out[hub + "attn.Wqkv.weight"] = torch.cat([W[p + f"attn.{n}.weight"] for n in "qkv"])
        for theirs, ours in (("attn.out_proj", "attn.out"), ("mlp.fc11", "ffn.up"),
                             ("mlp.fc12", "ffn.gate"), ("mlp.fc2", "ffn.down")):
            out[hub + theirs + ".weight"] = W[p + ours + ".weight"]
        for norm in ("norm1", "norm2"):
            for k in ("weight", "bias"):
                out[f"{hub}{norm}.{k}"] = W[f"{p}{norm}.{k}"]
    return out


def make_nomic(seed, D, V, fraction, interleaved, theta, n_inner, P):
    """A NomicBertModel: (Hub-named weights, config.json, forward(ids) ->
    last_hidden_state [T, D] float64)."""
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(d_model=D, n_heads=H, d_ff=NOMIC_F, n_layers=L, position="rotary",
             embedding_norm=True, bias=False, norm_bias=True, activation="silu", ffn_gated=True,
             rotary_dim=int(D // H * fraction), rotary_interleaved=interleaved,
             rotary_base=theta, layer_norm_eps=1e-12)
    g = torch.Generator().manual_seed(seed)
    W = gen_encoder_pieces.random_weights(c, g)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W["embed.token_type.weight"] = (0.5 * torch.randn(2, D, generator=g)).float()
    W64 = {k: v.double() for k, v in W.items()}
    cfg = {"model_type": "nomic_bert", "architectures": ["NomicBertModel"],
           "auto_map": {"AutoConfig": "nomic-ai/nomic-bert-2048--configuration_hf_nomic_bert."
                                      "NomicBertConfig",
                        "AutoModel": "nomic-ai/nomic-bert-2048--modeling_hf_nomic_bert."
                                     "NomicBertModel"},
           "activation_function": "swiglu", "n_embd": D, "n_head": H, "n_inner": n_inner,
           "n_layer": L, "n_positions": P, "vocab_size": V, "type_vocab_size": 2,
           "layer_norm_epsilon": 1e-12, "prenorm": False, "causal": False,
           "rotary_emb_fraction": fraction, "rotary_emb_base": theta,
           "rotary_emb_interleaved": interleaved, "rotary_emb_scale_base": None,
           "rotary_scaling_factor": None, "max_trained_positions": 2048,
           "qkv_proj_bias": False, "mlp_fc1_bias": False, "mlp_fc2_bias": False,
           "use_flash_attn": True, "fused_bias_fc": True, "fused_dropout_add_ln": True,
           "use_rms_norm": False, "parallel_block": False, "pad_vocab_size_multiple": 64,
           "dense_seq_output": True, "summary_first_dropout": 0.0, "embd_pdrop": 0.0,
           "attn_pdrop": 0.0, "resid_pdrop": 0.0, "initializer_range": 0.02,
           "tie_word_embeddings": True, "bos_token_id": None, "eos_token_id": None}

    def forward(ids):
        x = W64["embed.token.weight"][torch.tensor(ids)] + W64["embed.token_type.weight"][0]
        with torch.no_grad():
            return gen_encoder_pieces.encoder(c, W64, x[None], [len(ids)])[0][0]
    return nomic_hub_names(W, L), cfg, forward


def nomic_bert():
    """Half of each head rotated (rotary_emb_fraction 0.5), interleaved pairs,
    n_inner 200 (256 once rounded)."""
    w, cfg, forward = make_nomic(41, D, V, 0.5, True, 500.0, 200, 64)
    save("nomic_bert", w, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


NOMIC_PROMPTS = {"query": "search_query: ", "document": "search_document: ",
                 "classification": "classification: ", "clustering": "clustering: "}


MATRYOSHKA_DIMS = 4  # nomic_st's cut: half of HEAD_D


def matryoshka(v, dims):
    """nomic-embed-text-v1.5's model card (its sentence-transformers and
    transformers code alike): F.layer_norm(embeddings, normalized_shape=
    (embeddings.shape[1],)) (no weight, eps 1e-5) on what the modules give,
    then embeddings[:, :matryoshka_dim], then F.normalize(p=2, dim=1)."""
    fn = torch.nn.functional  # F is the fixtures' d_ff here
    return fn.normalize(fn.layer_norm(v[None], (v.shape[0],))[0][:dims], p=2, dim=0)


def nomic_st(inputs):
    """nomic-embed-text-v1.5's layout: NomicBertModel + mean pooling (no
    Normalize module: the model card normalises itself), its prompts; and
    expected_matryoshka.json / .npy: the model card's Matryoshka vectors of
    the same texts, cut to MATRYOSHKA_DIMS and uncut."""
    tok, _, n_tokens, _ = linked_tokenizer_source("bert_uncased")
    w, cfg, forward = make_nomic(42, HEAD_D, n_tokens, 1.0, False, 1000.0, NOMIC_F, 64)
    wordpiece_st_folder("nomic_st", w, cfg, forward, inputs, "mean", NOMIC_PROMPTS)
    vecs = [pool(forward(ids), "mean") for _, _, ids in inputs]
    cut = [floats(matryoshka(v, MATRYOSHKA_DIMS)) for v in vecs]
    d = os.path.join(OUT, "nomic_st")
    dump(os.path.join(d, "expected_matryoshka.json"),
         {"dimensions": MATRYOSHKA_DIMS, "embeddings": cut,
          "uncut": [floats(matryoshka(v, HEAD_D)) for v in vecs]})
    np.save(os.path.join(d, "expected_matryoshka.npy"), np.array(cut, dtype=np.float32))


def wordpiece_st_folder(name, w, cfg, forward, inputs, pooling, prompts=None, normalise=False):
    """A sentence-transformers folder (width HEAD_D, max_seq_length 64) with
    tokenizer_json/bert_uncased (BertTokenizerFast's WordPiece) linked:
    Transformer, Pooling (mean or cls), Normalize if normalise; the vectors
    of inputs' reference ids, and for the bindings' tests the same."""
    d = os.path.join(OUT, name)
    os.makedirs(d)
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d, linked_tokenizer_source("bert_uncased")[0])
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 64})
    steps = [("1_Pooling", "Pooling")] + ([("2_Normalize", "Normalize")] if normalise else [])
    dump(os.path.join(d, "modules.json"), st_modules(*steps))
    dump(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": 64, "do_lower_case": False})
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": HEAD_D, "pooling_mode_cls_token": pooling == "cls",
          "pooling_mode_mean_tokens": pooling == "mean"})
    if prompts:
        dump(os.path.join(d, "config_sentence_transformers.json"),
             {"prompts": prompts, "default_prompt_name": None, "similarity_fn_name": "cosine"})
    vecs = [pool(forward(ids), pooling) for _, _, ids in inputs]
    vecs = [normalize(v) for v in vecs] if normalise else vecs
    texts = [t for t, _, _ in inputs]
    dump(os.path.join(d, "expected.json"), {"texts": texts, "ids": [i for _, _, i in inputs],
                                            "dim": HEAD_D, "embeddings": [floats(v) for v in vecs]})
    dump_for_rust(d, texts, [floats(v) for v in vecs])


# ---- ModernBERT's sentence-transformers and cross-encoder folders --------------------------

# ModernBERT's special tokens, after the BPE vocabulary as in its tokenizer.json
# (50280 [UNK] ... 50284 [MASK] after 50280 BPE tokens); RoBERTa's they replace
MODERNBERT_SPECIALS = ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")
ROBERTA_SPECIALS = ("<s>", "</s>", "<pad>", "<unk>", "<mask>")
MODERNBERT_TOKENIZER = os.path.join(OUT, "modernbert_tokenizer.json")


def modernbert_tokenizer_source():
    """tests/data/tokenizer_json/roberta's byte-level BPE (its vocabulary and
    ids as they are) with ModernBERT's special tokens in place of RoBERTa's
    added ones, numbered after the vocabulary, and its TemplateProcessing:
    [CLS] a [SEP], pairs [CLS] a [SEP] b [SEP]; written once
    (MODERNBERT_TOKENIZER) for the folders to link. The reference cases are
    that file's (the Rust tokenizers library's) without any special token's
    text, their ids mapped onto the template: <s> is [CLS], </s> [SEP], a
    pair's </s></s> one [SEP]."""
    d = os.path.join(HERE, "tokenizer_json", "roberta")
    with open(os.path.join(d, "tokenizer.json")) as f:
        tok = json.load(f)
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)["cases"]
    old = {t["content"]: t["id"] for t in tok["added_tokens"]}
    first = max(tok["model"]["vocab"].values()) + 1
    ids = {name: first + i for i, name in enumerate(MODERNBERT_SPECIALS)}
    tok["added_tokens"] = [{"id": ids[n], "content": n, "single_word": False, "lstrip": n == "[MASK]",
                            "rstrip": False, "normalized": False, "special": True}
                           for n in MODERNBERT_SPECIALS]

    def special(name, type_id):
        return {"SpecialToken": {"id": name, "type_id": type_id}}

    def sequence(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}
    tok["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
        "pair": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
                 special("[SEP]", 1)],
        "special_tokens": {n: {"id": n, "ids": [ids[n]], "tokens": [n]} for n in ("[CLS]", "[SEP]")}}
    tok["padding"].update({"pad_id": ids["[PAD]"], "pad_token": "[PAD]"})
    tok["truncation"] = None  # tf_pipeline_load truncates to the model's length
    with open(MODERNBERT_TOKENIZER, "w") as f:  # compact: it is the largest file
        json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))
    plain = [c for c in cases if not any(n in c["text"] + c.get("pair", "")
                                         for n in ROBERTA_SPECIALS + MODERNBERT_SPECIALS)]
    cls, sep = ids["[CLS]"], ids["[SEP]"]
    mapped = {old["<s>"]: cls, old["</s>"]: sep}
    for c in plain:
        i = [mapped.get(t, t) for t in c["ids"]]
        if "pair" in c:
            at = next(k for k in range(len(i) - 1) if i[k] == sep and i[k + 1] == sep)
            i = i[:at] + i[at + 1:]
        c["ids"] = i
    n = first + len(MODERNBERT_SPECIALS)
    return MODERNBERT_TOKENIZER, {i: i for i in range(n)}, n, plain


def make_modernbert(seed, D, V, norm_bias=False):
    """ModernBERT weights (the library's names, float32), float64 forward(ids)
    -> last_hidden_state [T, D] (gen_encoder_pieces.encoder, as modernbert() runs it)
    and config.json's encoder keys, 4 layers as MODERNBERT's."""
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(MODERNBERT, d_model=D, d_ff=2 * D, norm_bias=norm_bias)
    g = torch.Generator().manual_seed(seed)
    W = gen_encoder_pieces.random_weights(c, g)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W64 = {k: v.double() for k, v in W.items()}

    def forward(ids):
        x = W64["embed.token.weight"][torch.tensor(ids)][None]  # [1, T, D]
        with torch.no_grad():
            return gen_encoder_pieces.encoder(c, W64, x, [len(ids)])[0][0]
    cfg = {"model_type": "modernbert", "vocab_size": V, "hidden_size": D,
           "intermediate_size": 2 * D, "num_hidden_layers": 4, "num_attention_heads": H,
           "hidden_activation": "gelu", "norm_eps": 1e-5, "norm_bias": norm_bias,
           "attention_bias": False, "mlp_bias": False, "max_position_embeddings": 64,
           "global_rope_theta": 1000.0, "local_rope_theta": 50.0, "local_attention": 4,
           "global_attn_every_n_layers": 3}
    return W, forward, cfg, g


def modernbert_folder(name, cfg, source):
    """The folder with config.json (ModernBertConfig's token ids as the
    tokenizer's) and source's tokenizer linked."""
    d = os.path.join(OUT, name)
    os.makedirs(d)
    with open(source[0]) as f:
        tok = json.load(f)
    cls, sep = tok_id(tok, "[CLS]"), tok_id(tok, "[SEP]")
    cfg.update(pad_token_id=tok_id(tok, "[PAD]"), cls_token_id=cls, bos_token_id=cls,
               sep_token_id=sep, eos_token_id=sep)
    dump(os.path.join(d, "config.json"), cfg)
    write_tokenizer(d, source[0])
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 64,
          "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]"})
    return d


def modernbert_st(source, inputs):
    """Laid out as nomic-ai/modernbert-embed-base: a ModernBertModel saved by
    sentence-transformers (its names without "model."), mean pooling,
    Normalize, prompts search_query: / search_document: (none by default)."""
    W, forward, cfg, _ = make_modernbert(31, HEAD_D, source[2])
    cfg["architectures"] = ["ModernBertModel"]
    d = modernbert_folder("modernbert_st", cfg, source)
    save_weights(d, modernbert_hub_names(W, prefix=""))
    dump(os.path.join(d, "modules.json"), st_modules(*MEAN_NORMALIZE))
    dump(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": 64, "do_lower_case": False})
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": HEAD_D, "pooling_mode_mean_tokens": True})
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"prompts": {"query": "search_query: ", "document": "search_document: "},
          "default_prompt_name": None, "similarity_fn_name": "cosine"})
    vecs = [normalize(pool(forward(ids), "mean")) for _, _, ids in inputs]
    texts = [t for t, _, _ in inputs]
    dump(os.path.join(d, "expected.json"), {"texts": texts, "ids": [i for _, _, i in inputs],
                                            "dim": HEAD_D, "embeddings": [floats(v) for v in vecs]})
    dump_for_rust(d, texts, [floats(v) for v in vecs])


def modernbert_head_folder(name, seed, labels, head_cfg, inputs, source):
    """A ModernBertForSequenceClassification folder (model.*, head.dense,
    head.norm, classifier.*) and its outputs, following modeling_modernbert.py:
    ModernBertForSequenceClassification.forward (classifier_pooling "cls":
    h[:, 0], "mean": the mean over the attention mask), ModernBertPredictionHead
    .forward (norm(act(dense(x))): dense with a bias by classifier_bias, act
    ACT2FN[classifier_activation], LayerNorm with norm_eps and a bias by
    norm_bias), classifier; then sigmoid with one label (CrossEncoder.predict's
    activation_fn, the "sentence_transformers" object as tomaarsen/
    reranker-ModernBERT-base-gooaq-bce saves it), else softmax
    (TextClassificationPipeline.postprocess). inputs: (text, pair or None,
    reference ids)."""
    n, norm_bias = len(labels), head_cfg["norm_bias"]
    W, forward, cfg, g = make_modernbert(seed, HEAD_D, source[2], norm_bias=norm_bias)
    cfg.update(head_cfg, architectures=["ModernBertForSequenceClassification"],
               id2label={str(i): l for i, l in enumerate(labels)},
               label2id={l: i for i, l in enumerate(labels)})
    if n == 1:
        cfg["sentence_transformers"] = {"activation_fn": "torch.nn.modules.activation.Sigmoid",
                                        "version": "4.0.1"}
    E = HEAD_D
    head = {"head.dense.weight": (torch.randn(E, E, generator=g) / math.sqrt(E)).float(),
            "head.norm.weight": (1 + 0.1 * torch.randn(E, generator=g)).float(),
            "classifier.weight": (torch.randn(n, E, generator=g) * 0.8).float(),
            "classifier.bias": (torch.randn(n, generator=g) * 0.3).float()}
    if head_cfg["classifier_bias"]:
        head["head.dense.bias"] = (torch.randn(E, generator=g) * 0.2).float()
    if norm_bias:
        head["head.norm.bias"] = (0.1 * torch.randn(E, generator=g)).float()
    d = modernbert_folder(name, cfg, source)
    save_weights(d, {**modernbert_hub_names(W), **head})
    hd = {k: v.double() for k, v in head.items()}
    act = {"gelu": gelu, "tanh": torch.tanh, "relu": torch.relu}[head_cfg["classifier_activation"]]
    out = []
    for _, _, ids in inputs:
        h = forward(ids)  # [T, D]: one unpadded sequence, its mask all ones
        x = h[0] if head_cfg["classifier_pooling"] == "cls" else h.mean(0)
        x = x @ hd["head.dense.weight"].T + hd.get("head.dense.bias", 0)
        x = layer_norm(act(x), hd["head.norm.weight"], hd.get("head.norm.bias", 0), 1e-5)
        logits = x @ hd["classifier.weight"].T + hd["classifier.bias"]
        out.append(torch.sigmoid(logits) if n == 1 else torch.softmax(logits, 0))
    dump(os.path.join(d, "expected.json"),
         {"inputs": [[t, p] for t, p, _ in inputs], "labels": labels,
          "ids": [i for _, _, i in inputs], "out": [floats(v) for v in out]})
    dump_for_rust(d, [[t, p] for t, p, _ in inputs], [floats(v) for v in out])


def modernbert_pipelines():
    source = modernbert_tokenizer_source()
    singles, pairs = short_cases(source[3], 24)
    modernbert_st(source, singles[:6])
    # as tomaarsen/reranker-ModernBERT-base-gooaq-bce (ModernBERT-base's head keys)
    modernbert_head_folder("modernbert_cross_encoder", 32, ["LABEL_0"],
                           {"classifier_pooling": "mean", "classifier_activation": "gelu",
                            "classifier_bias": False, "norm_bias": False}, pairs[:6], source)
    # a fine-tuned classifier with the other choices: CLS pooling, biases, tanh
    modernbert_head_folder("modernbert_classifier", 33, ["negative", "neutral", "positive"],
                           {"classifier_pooling": "cls", "classifier_activation": "tanh",
                            "classifier_bias": True, "norm_bias": True}, singles[:6], source)


# ---- Seeds of the loader's fuzz corpus (fuzz/corpus/loader) -------------------------------
# Each family's keys on a small model: its weights, "@@config.json@@\n" and a
# config.json (fuzz/fuzz_loader.c), once as it loads and once for each key
# that must be refused by name.

FUZZ_CORPUS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "loader")


def fuzz_seed(name, w, cfg):
    path = os.path.join(FUZZ_CORPUS, name + ".bin")
    write_safetensors(path, {k: v.numpy().astype(np.float32) for k, v in w.items()})
    with open(path, "ab") as f:
        f.write(b"@@config.json@@\n" + json.dumps(cfg, indent=1).encode())


def fuzz_seeds(family, w, cfg, bad):
    fuzz_seed(family + "_hub", w, cfg)
    for name, change in bad:
        fuzz_seed(f"{family}_hub_{name}", w, {**cfg, **change})


def nomic_fuzz_seeds():
    w, cfg, _ = make_nomic(43, 8, 12, 0.5, True, 500.0, 100, 16)
    fuzz_seeds("nomic_bert", w, cfg, [
        ("fraction_odd", {"rotary_emb_fraction": 0.25}), ("prenorm", {"prenorm": True}),
        ("glu", {"activation_function": "glu"}), ("scaling", {"rotary_scaling_factor": 0.5}),
        ("dynamic_ntk", {"rotary_scaling_factor": 2.0, "max_trained_positions": 4}),
        ("biases_mixed", {"mlp_fc2_bias": True}), ("n_inner", {"n_inner": 300})])


# ---- GTE v1.5 (model_type "new", Alibaba-NLP/new-impl modeling.py) --------------------------

def gte_inv_freq(dim, theta, a):
    """NTKScalingRotaryEmbedding._set_cos_sin_cache (mixed_b None), as its
    __init__ leaves it for every length: base = theta * a, inv_freq =
    1 / base^(arange(0, dim, 2) / dim) / a^(2 / dim)."""
    inv_freq = 1.0 / (theta * a) ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    return inv_freq / a ** (2 / dim)


def gte_hub_names(W, L):
    """NewModel's names; up_gate_proj = up | gate, no bias."""
    out = {"embeddings.word_embeddings.weight": W["embed.token.weight"],
           "embeddings.LayerNorm.weight": W["embed.norm.weight"],
           "embeddings.LayerNorm.bias": W["embed.norm.bias"]}
    for l in range(L):
        p, hub = f"layers.{l}.", f"encoder.layer.{l}."
        for k in ("weight", "bias"):
            out[f"{hub}attention.qkv_proj.{k}"] = torch.cat([W[f"{p}attn.{n}.{k}"] for n in "qkv"])
            out[f"{hub}attention.o_proj.{k}"] = W[f"{p}attn.out.{k}"]
            out[f"{hub}mlp.down_proj.{k}"] = W[f"{p}ffn.down.{k}"]
            out[f"{hub}attn_ln.{k}"] = W[f"{p}norm1.{k}"]
            out[f"{hub}mlp_ln.{k}"] = W[f"{p}norm2.{k}"]
        out[hub + "mlp.up_gate_proj.weight"] = torch.cat([W[p + "ffn.up.weight"],
                                                          W[p + "ffn.gate.weight"]])
    return out


def make_gte(seed, D, V, theta, factor, P):
    """A NewModel: (Hub-named weights, config.json, forward(ids) float64)."""
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(d_model=D, n_heads=H, d_ff=F, n_layers=L, position="rotary", embedding_norm=True,
             ffn_gated=True, activation="gelu", layer_norm_eps=1e-12,
             inv_freq=gte_inv_freq(D // H, theta, factor))
    g = torch.Generator().manual_seed(seed)
    W = gen_encoder_pieces.random_weights(c, g)
    for l in range(L):  # NewGatedMLP's up_gate_proj has no bias
        for n in ("up", "gate"):
            W[f"layers.{l}.ffn.{n}.bias"] = torch.zeros(F)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W64 = {k: v.double() for k, v in W.items()}
    cfg = {"model_type": "new", "architectures": ["NewModel"],
           "auto_map": {"AutoConfig": "Alibaba-NLP/new-impl--configuration.NewConfig",
                        "AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel",
                        "AutoModelForMaskedLM": "Alibaba-NLP/new-impl--modeling.NewForMaskedLM"},
           "vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L,
           "num_attention_heads": H, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
           "layer_norm_type": "layer_norm", "max_position_embeddings": P, "type_vocab_size": 0,
           "position_embedding_type": "rope", "rope_theta": theta,
           "rope_scaling": {"type": "ntk", "factor": factor}, "logn_attention_scale": False,
           "logn_attention_clip1": False, "pack_qkv": True, "unpad_inputs": False,
           "use_memory_efficient_attention": False, "hidden_dropout_prob": 0.1,
           "attention_probs_dropout_prob": 0.0, "classifier_dropout": None,
           "initializer_range": 0.02, "pad_token_id": 0, "torch_dtype": "float32"}

    def forward(ids):
        x = W64["embed.token.weight"][torch.tensor(ids)]
        with torch.no_grad():
            return gen_encoder_pieces.encoder(c, W64, x[None], [len(ids)])[0][0]
    return gte_hub_names(W, L), cfg, forward


def gte():
    w, cfg, forward = make_gte(51, D, V, 500.0, 2.0, 64)
    save("gte", w, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


def gte_st(inputs):
    """gte-base-en-v1.5's layout: NewModel + CLS pooling."""
    tok, _, n_tokens, _ = linked_tokenizer_source("bert_uncased")
    w, cfg, forward = make_gte(52, HEAD_D, n_tokens, 10000.0, 2.0, 64)
    wordpiece_st_folder("gte_st", w, cfg, forward, inputs, "cls")


def gte_fuzz_seeds():
    w, cfg, _ = make_gte(53, 8, 12, 500.0, 2.0, 16)
    fuzz_seeds("gte", w, cfg, [
        ("rms_norm", {"layer_norm_type": "rms_norm"}),
        ("mixed_b", {"rope_scaling": {"type": "ntk", "factor": 2.0, "mixed_b": 0.9}}),
        ("linear", {"rope_scaling": {"type": "linear", "factor": 2.0}}),
        ("no_scaling", {"rope_scaling": None}), ("logn", {"logn_attention_scale": True}),
        ("absolute", {"position_embedding_type": "absolute"})])


# ---- JinaBERT v2 (jinaai/jina-bert-implementation modeling_bert.py) -------------------------

def jina_hub_names(W, L):
    """JinaBertModel's names; gated_layers = the activated half | the other,
    no bias."""
    out = {"embeddings.word_embeddings.weight": W["embed.token.weight"],
           "embeddings.token_type_embeddings.weight": W["embed.token_type.weight"],
           "embeddings.LayerNorm.weight": W["embed.norm.weight"],
           "embeddings.LayerNorm.bias": W["embed.norm.bias"]}
    for l in range(L):
        p, hub = f"layers.{l}.", f"encoder.layer.{l}."
        for k in ("weight", "bias"):
            for theirs, n in (("query", "q"), ("key", "k"), ("value", "v")):
                out[f"{hub}attention.self.{theirs}.{k}"] = W[f"{p}attn.{n}.{k}"]
            out[f"{hub}attention.output.dense.{k}"] = W[f"{p}attn.out.{k}"]
            out[f"{hub}attention.output.LayerNorm.{k}"] = W[f"{p}norm1.{k}"]
            out[f"{hub}mlp.wo.{k}"] = W[f"{p}ffn.down.{k}"]
            out[f"{hub}mlp.layernorm.{k}"] = W[f"{p}norm2.{k}"]
        out[hub + "mlp.gated_layers.weight"] = torch.cat([W[p + "ffn.gate.weight"],
                                                          W[p + "ffn.up.weight"]])
    return out


def jina_code_hub_names(W, L):
    """jina-bert-v2-qk-post-norm's JinaBertModel names; up_gated_layer = the
    multiplied half | the activated one, no bias."""
    out = {k: v for k, v in jina_hub_names(W, L).items()
           if ".mlp." not in k}
    for l in range(L):
        p, hub = f"layers.{l}.", f"encoder.layer.{l}."
        for k in ("weight", "bias"):
            out[f"{hub}attention.self.layer_norm_q.{k}"] = W[f"{p}attn.q_norm.{k}"]
            out[f"{hub}attention.self.layer_norm_k.{k}"] = W[f"{p}attn.k_norm.{k}"]
            out[f"{hub}layer_norm_1.{k}"] = W[f"{p}norm1b.{k}"]
            out[f"{hub}mlp.down_layer.{k}"] = W[f"{p}ffn.down.{k}"]
            out[f"{hub}layer_norm_2.{k}"] = W[f"{p}norm2.{k}"]
        out[hub + "mlp.up_gated_layer.weight"] = torch.cat([W[p + "ffn.up.weight"],
                                                            W[p + "ffn.gate.weight"]])
    return out


JINA_CODE_REMOTE = "jinaai/jina-bert-v2-qk-post-norm--"


def make_jina(seed, D, V, P, code=False):
    """A JinaBertModel (code: jina-bert-v2-qk-post-norm's): (Hub-named weights,
    config.json, forward(ids) float64)."""
    c = dict(gen_encoder_pieces.DEFAULTS)
    c.update(d_model=D, n_heads=H, d_ff=F, n_layers=L, position="alibi", embedding_norm=True,
             ffn_gated=True, activation="gelu", layer_norm_eps=1e-12, qk_norm=code,
             add_norm1b=code)
    g = torch.Generator().manual_seed(seed)
    W = gen_encoder_pieces.random_weights(c, g)
    for l in range(L):  # JinaBertGLUMLP's gated_layers has no bias
        for n in ("up", "gate"):
            W[f"layers.{l}.ffn.{n}.bias"] = torch.zeros(F)
    W["embed.token.weight"] = torch.randn(V, D, generator=g).float()
    W["embed.token_type.weight"] = (0.5 * torch.randn(2, D, generator=g)).float()
    W64 = {k: v.double() for k, v in W.items()}
    cfg = {"model_type": "bert", "architectures": ["JinaBertForMaskedLM"],
           "auto_map": {"AutoConfig": "jinaai/jina-bert-implementation--configuration_bert."
                                      "JinaBertConfig",
                        "AutoModel": "jinaai/jina-bert-implementation--modeling_bert.JinaBertModel",
                        "AutoModelForMaskedLM": "jinaai/jina-bert-implementation--modeling_bert."
                                                "JinaBertForMaskedLM"},
           "vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L,
           "num_attention_heads": H, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
           "max_position_embeddings": P, "type_vocab_size": 2, "position_embedding_type": "alibi",
           "feed_forward_type": "geglu", "emb_pooler": "mean", "attn_implementation": "torch",
           "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.0,
           "initializer_range": 0.02, "pad_token_id": 0, "torch_dtype": "float32"}

    if code:  # jina-embeddings-v2-base-code's config.json: the same keys, its auto_map
        cfg["auto_map"] = {k: v.replace("jinaai/jina-bert-implementation--", JINA_CODE_REMOTE)
                           for k, v in cfg["auto_map"].items()}
        cfg["_name_or_path"] = JINA_CODE_REMOTE[:-2]

    def forward(ids):
        x = W64["embed.token.weight"][torch.tensor(ids)] + W64["embed.token_type.weight"][0]
        with torch.no_grad():
            return gen_encoder_pieces.encoder(c, W64, x[None], [len(ids)])[0][0]
    return (jina_code_hub_names if code else jina_hub_names)(W, L), cfg, forward


def jina_bert():
    w, cfg, forward = make_jina(61, D, V, 64)
    save("jina_bert", w, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


def jina_st(inputs):
    """jina-embeddings-v2-base-en's layout: JinaBertModel + mean pooling."""
    w, cfg, forward = make_jina(62, HEAD_D, linked_tokenizer_source("bert_uncased")[2], 64)
    wordpiece_st_folder("jina_st", w, cfg, forward, inputs, "mean")


def jina_fuzz_seeds():
    w, cfg, _ = make_jina(63, 8, 12, 16)
    fuzz_seeds("jina_bert", w, cfg, [
        ("swiglu", {"feed_forward_type": "swiglu"}), ("original", {"feed_forward_type": "original"}),
        ("absolute", {"position_embedding_type": "absolute"})])


def jina_code():
    w, cfg, forward = make_jina(64, D, V, 64, code=True)
    save("jina_code", w, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


def jina_code_st(inputs):
    """jina-embeddings-v2-base-code's layout: its JinaBertModel + mean pooling."""
    w, cfg, forward = make_jina(65, HEAD_D, linked_tokenizer_source("bert_uncased")[2], 64,
                                code=True)
    wordpiece_st_folder("jina_code_st", w, cfg, forward, inputs, "mean")


def jina_code_broken():
    """Inconsistent jina_code folders the loader must refuse by the tensor:
    layer 1's layer_norm_k.weight left out; layer 0's layer_norm_q.weight of
    8 values, not hidden_size's 16."""
    w, cfg, _ = make_jina(64, D, V, 64, code=True)
    missing = {k: v for k, v in w.items() if k != "encoder.layer.1.attention.self.layer_norm_k.weight"}
    short = dict(w)
    short["encoder.layer.0.attention.self.layer_norm_q.weight"] = \
        w["encoder.layer.0.attention.self.layer_norm_q.weight"][:8]
    for name, weights in (("jina_code_missing_norm", missing), ("jina_code_norm_shape", short)):
        d = os.path.join(OUT, name)
        os.makedirs(d)
        write_safetensors(os.path.join(d, "model.safetensors"),
                          {k: v.numpy().astype(np.float32) for k, v in weights.items()})
        dump(os.path.join(d, "config.json"), cfg)


def jina_code_fuzz_seeds():
    w, cfg, _ = make_jina(66, 8, 12, 16, code=True)
    fuzz_seeds("jina_code", w, cfg, [
        ("reglu", {"feed_forward_type": "reglu"}), ("swiglu", {"feed_forward_type": "swiglu"}),
        ("other_remote", {"auto_map": {"AutoModel": "jinaai/jina-bert-v2-qk-devlin-norm-1e-2--"
                                                    "modeling_bert.JinaBertModel"}})])
    no_k_norm = {k: v for k, v in w.items() if "layer_norm_k" not in k}
    fuzz_seed("jina_code_hub_no_k_norm", no_k_norm, cfg)
# ---- MPNet (transformers' models/mpnet/modeling_mpnet.py) ---------------------------------

MPNET_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3, then BERT's vocabulary
MPNET_VOCAB = MPNET_SPECIALS + VOCAB + ["<mask>"]
MPNET_PADDING_IDX = 1  # MPNetEmbeddings.padding_idx
MPNET_BUCKETS = 32  # the num_buckets MPNetEncoder.forward gives compute_position_bias


def make_mpnet(seed, V, P, pooler):
    """MPNetModel's weights under its names (small random values), its
    config.json, and forward(ids) -> last_hidden_state [T, D] (float64)."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale=0.3):
        return (torch.randn(*shape, generator=g) * scale).float()
    w = {"embeddings.word_embeddings.weight": r(V, D, scale=1.0),
         "embeddings.position_embeddings.weight": r(P, D, scale=0.5),
         "embeddings.LayerNorm.weight": 1 + r(D, scale=0.1),
         "embeddings.LayerNorm.bias": r(D, scale=0.1),
         "encoder.relative_attention_bias.weight": r(MPNET_BUCKETS, H, scale=1.0)}
    for l in range(L):
        p = f"encoder.layer.{l}."
        for name in ("attention.attn.q", "attention.attn.k", "attention.attn.v",
                     "attention.attn.o"):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(D, D, scale=1 / math.sqrt(D)), r(D)
        w[p + "intermediate.dense.weight"] = r(F, D, scale=1 / math.sqrt(D))
        w[p + "intermediate.dense.bias"] = r(F)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(D, F, scale=1 / math.sqrt(F)), r(D)
        for norm in ("attention.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = 1 + r(D, scale=0.1), r(D, scale=0.1)
    if pooler:
        w["pooler.dense.weight"], w["pooler.dense.bias"] = r(D, D, scale=1 / math.sqrt(D)), r(D)
    cfg = {"model_type": "mpnet", "architectures": ["MPNetModel"], "vocab_size": V,
           "hidden_size": D, "num_attention_heads": H, "intermediate_size": F,
           "num_hidden_layers": L, "max_position_embeddings": P, "hidden_act": "gelu",
           "layer_norm_eps": 1e-5, "relative_attention_num_buckets": MPNET_BUCKETS,
           "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
           "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
           "initializer_range": 0.02}
    return w, cfg, g, lambda ids: mpnet_forward(w, cfg, ids)


def mpnet_forward(w, cfg, ids):
    """MPNetModel.forward's last_hidden_state for one unpadded sequence
    (modeling_mpnet.py; dropout off)."""
    def W(name):
        return w[name].double()
    eps, T, dk = cfg["layer_norm_eps"], len(ids), D // H
    positions = roberta_positions(ids, MPNET_PADDING_IDX)  # create_position_ids_from_input_ids
    x = W("embeddings.word_embeddings.weight")[torch.tensor(ids)]
    x = x + W("embeddings.position_embeddings.weight")[torch.tensor(positions)]
    x = layer_norm(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), eps)
    # compute_position_bias: relative_attention_bias[bucket(j - i)], (H, T, T)
    pos = torch.arange(T)
    buckets = gen_encoder_pieces.relative_bucket(pos[None, :] - pos[:, None],
                                         {"relative_buckets": MPNET_BUCKETS,
                                          "relative_max_distance": 128})
    position_bias = W("encoder.relative_attention_bias.weight")[buckets].permute(2, 0, 1)
    for l in range(L):
        p = f"encoder.layer.{l}."

        def lin(name, v):
            return v @ W(p + name + ".weight").T + W(p + name + ".bias")
        q, k, v = (lin("attention.attn." + n, x).view(T, H, dk).transpose(0, 1) for n in "qkv")
        scores = q @ k.transpose(1, 2) / math.sqrt(dk) + position_bias  # MPNetSelfAttention
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, D)
        x = layer_norm(lin("attention.attn.o", ctx) + x, W(p + "attention.LayerNorm.weight"),
                       W(p + "attention.LayerNorm.bias"), eps)  # MPNetAttention
        h = gelu(lin("intermediate.dense", x))  # MPNetIntermediate
        x = layer_norm(lin("output.dense", h) + x, W(p + "output.LayerNorm.weight"),
                       W(p + "output.LayerNorm.bias"), eps)  # MPNetOutput
    return x


def mpnet():
    """An MPNetForMaskedLM under "mpnet." (its lm_head ignored, no pooler)."""
    w, cfg, g, forward = make_mpnet(41, V, 34, pooler=False)
    cfg["architectures"] = ["MPNetForMaskedLM"]
    saved = {"mpnet." + k: v for k, v in w.items()}
    saved["lm_head.dense.weight"] = (torch.randn(D, D, generator=g) * 0.3).float()
    saved["lm_head.bias"] = torch.zeros(V).float()
    save("mpnet", saved, cfg, SEQUENCES, [forward(ids) for ids in SEQUENCES])


def mpnet_ids(text, max_length=None):
    """MPNet's tokenizer.json on a lower-case ASCII text: WordPiece over BERT's
    vocabulary shifted by the four specials, <s> ... </s> (RobertaProcessing),
    cut to max_length ids."""
    body = [i + len(MPNET_SPECIALS) for i in wordpiece(text)]
    if max_length:
        body = body[:max_length - 2]
    return [MPNET_VOCAB.index("<s>")] + body + [MPNET_VOCAB.index("</s>")]


def mpnet_tokenizer():
    """tokenizer.json as all-mpnet-base-v2's: BertNormalizer (lower case),
    BertPreTokenizer, WordPiece with [UNK], RobertaProcessing <s> a </s></s> b
    </s>, a WordPiece decoder."""
    specials = ["<s>", "<pad>", "</s>", "[UNK]", "<mask>"]
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": MPNET_VOCAB.index(t), "content": t, "single_word": False,
                              "lstrip": t == "<mask>", "rstrip": False, "normalized": False,
                              "special": True} for t in specials],
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": True, "strip_accents": None,
                           "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                               "trim_offsets": True, "add_prefix_space": False},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                      "vocab": {t: i for i, t in enumerate(MPNET_VOCAB)}}}


def mpnet_folder(name, seed, architecture, pooler):
    """An MPNet folder with its tokenizer (514 positions as all-mpnet-base-v2);
    the folder, weights, config, generator and forward."""
    w, cfg, g, forward = make_mpnet(seed, len(MPNET_VOCAB), 514, pooler)
    cfg["architectures"] = [architecture]
    d = os.path.join(OUT, name)
    os.makedirs(d)
    write_tokenizer(d, mpnet_tokenizer())
    dump(os.path.join(d, "tokenizer_config.json"),
         {"tokenizer_class": "MPNetTokenizer", "do_lower_case": True, "model_max_length": 512,
          "bos_token": "<s>", "eos_token": "</s>", "cls_token": "<s>", "sep_token": "</s>",
          "pad_token": "<pad>", "unk_token": "[UNK]", "mask_token": "<mask>"})
    return d, w, cfg, g, forward


MPNET_MAX_SEQ_LENGTH = 384  # all-mpnet-base-v2's sentence_bert_config.json


def mpnet_sentence_encoder():
    """all-mpnet-base-v2's layout: MPNetModel (pooler stored, unused), mean
    pooling, Normalize, max_seq_length 384; the last text has 420 tokens."""
    d, w, cfg, _, forward = mpnet_folder("mpnet_st", 42, "MPNetModel", pooler=True)
    save_weights(d, w)
    dump(os.path.join(d, "config.json"), cfg)
    dump(os.path.join(d, "modules.json"), st_modules(*MEAN_NORMALIZE))
    dump(os.path.join(d, "sentence_bert_config.json"),
         {"max_seq_length": MPNET_MAX_SEQ_LENGTH, "do_lower_case": False})
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": D, "pooling_mode_cls_token": False,
          "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
          "pooling_mode_mean_sqrt_len_tokens": False})
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"prompts": {}, "default_prompt_name": None, "similarity_fn_name": "cosine"})
    texts = TEXTS + ["Hello World", "the cat sat on the mat. " * 60]
    ids = [mpnet_ids(t, MPNET_MAX_SEQ_LENGTH) for t in texts]
    vecs = [normalize(pool(forward(i), "mean")) for i in ids]
    dump(os.path.join(d, "expected.json"), {"texts": texts, "ids": ids, "dim": D,
                                            "embeddings": [floats(v) for v in vecs]})
    dump_for_rust(d, texts, [floats(v) for v in vecs])


def mpnet_classifier():
    """MPNetForSequenceClassification: MPNetClassificationHead,
    out_proj(tanh(dense(h[:, 0]))), softmax over three labels."""
    labels = ["negative", "neutral", "positive"]
    d, w, cfg, g, forward = mpnet_folder("mpnet_classifier", 43,
                                         "MPNetForSequenceClassification", pooler=False)
    cfg.update({"id2label": {str(i): l for i, l in enumerate(labels)},
                "label2id": {l: i for i, l in enumerate(labels)}})
    dump(os.path.join(d, "config.json"), cfg)
    head = {"classifier.dense.weight": (torch.randn(D, D, generator=g) / math.sqrt(D)).float(),
            "classifier.dense.bias": (torch.randn(D, generator=g) * 0.2).float(),
            "classifier.out_proj.weight": (torch.randn(3, D, generator=g) * 0.8).float(),
            "classifier.out_proj.bias": (torch.randn(3, generator=g) * 0.3).float()}
    save_weights(d, {**{"mpnet." + k: v for k, v in w.items()}, **head})
    hd = {k: v.double() for k, v in head.items()}
    texts = ["i liked the movie.", "the movie was bad.", "it was not good."]
    out, ids = [], []
    for text in texts:
        i = mpnet_ids(text)
        h = torch.tanh(forward(i)[0] @ hd["classifier.dense.weight"].T + hd["classifier.dense.bias"])
        out.append(torch.softmax(h @ hd["classifier.out_proj.weight"].T
                                 + hd["classifier.out_proj.bias"], 0))
        ids.append(i)
    dump(os.path.join(d, "expected.json"),
         {"inputs": [[t, None] for t in texts], "labels": labels, "ids": ids,
          "out": [floats(v) for v in out]})
    dump_for_rust(d, texts, [floats(v) for v in out])


def mpnet_fuzz_seeds():
    """Seeds of fuzz/corpus/loader (fuzz_loader.c: a safetensors file, then
    "@@config.json@@\\n" and a config.json): the mpnet folder with its
    config.json, and with relative_attention_num_buckets the loader refuses."""
    d = os.path.join(OUT, "mpnet")
    with open(os.path.join(d, "model.safetensors"), "rb") as f:
        weights = f.read()
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    corpus = os.path.join(HERE, "..", "..", "fuzz", "corpus", "loader")
    for name, changes in (("mpnet_with_config", {}),
                          ("mpnet_bad_buckets", {"relative_attention_num_buckets": 64})):
        with open(os.path.join(corpus, name + ".bin"), "wb") as f:
            f.write(weights + b"@@config.json@@\n" + json.dumps({**cfg, **changes}).encode())


# ---- Token classification (transformers' pipelines/token_classification.py) -------------

TOKEN_LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
TOKEN_TEXTS = ["the cats sat on the mats", "Hello world, where is the red house?",
               "the quick brown fox jumped over the lazy dogs"]


def wordpiece_offsets(text):
    """gen_pipelines.py's wordpiece with each id's character span: BERT's basic
    tokenizer (lower case, split on spaces and punctuation), then greedy
    longest-match pieces ("##" inside a word); an unknown word is one [UNK]
    over the whole word."""
    from gen_pipelines import IDS
    words, start = [], None
    for i, ch in enumerate(text + " "):
        if ch.isspace() or ch in ".,?!:":
            if start is not None:
                words.append((start, i))
            start = None
            if ch in ".,?!:":
                words.append((i, i + 1))
        elif start is None:
            start = i
    pieces = []
    for ws, we in words:
        w, at, word = text[ws:we].lower(), 0, []
        while at < len(w):
            end = len(w)
            while end > at and ((w[at:end] if at == 0 else "##" + w[at:end]) not in IDS):
                end -= 1
            if end == at:
                word = [(IDS["[UNK]"], ws, we)]
                break
            word.append((IDS[w[at:end] if at == 0 else "##" + w[at:end]], ws + at, ws + end))
            at = end
        pieces += word
    return pieces


# tokenizers' decoders (tokenizers/src/decoders/), which transformers'
# convert_tokens_to_string runs for a fast tokenizer
def wordpiece_decode(tokens, prefix="##"):
    """decoders/wordpiece.rs WordPiece::decode_chain with cleanup: a token
    after the first loses prefix, or gets a space before it; then cleanup."""
    out = []
    for i, t in enumerate(tokens):
        if i:
            t = t.replace(prefix, "", 1) if t.startswith(prefix) else " " + t
        for dirty, clean in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                             (" n't", "n't"), (" 'm", "'m"), (" do not", " don't"),
                             (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
            t = t.replace(dirty, clean)
        out.append(t)
    return "".join(out)


def bytes_to_unicode():
    """GPT-2's byte -> character map (pre_tokenizers/byte_level.rs bytes_char)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTE_OF = {c: b for b, c in bytes_to_unicode().items()}


def byte_level_decode(tokens):
    """decoders/byte_level.rs ByteLevel::decode_chain: each token's characters
    back to bytes (a token with another character: its own UTF-8), all as one
    text, invalid UTF-8 replaced (from_utf8_lossy)."""
    out = b""
    for t in tokens:
        out += bytes(BYTE_OF[c] for c in t) if all(c in BYTE_OF for c in t) else t.encode()
    return out.decode("utf-8", errors="replace")


def gather_pre_entities(text, ids, scores, offsets, vocab, unk, wordpiece):
    """TokenClassificationPipeline.gather_pre_entities, specials already left
    out: word the token (convert_ids_to_tokens); is_subword len(word) !=
    len(word_ref) for a tokenizer with a continuing_subword_prefix (WordPiece),
    else the fallback heuristic (not at the start, no space before or at it);
    the unknown token: its text span, never a subword."""
    out = []
    for idx, (i, (start, end)) in enumerate(zip(ids, offsets)):
        word, ref = vocab[i], text[start:end]
        if wordpiece:
            is_subword = len(word) != len(ref)
        else:
            is_subword = start > 0 and " " not in text[start - 1:start + 1]
        if i == unk:
            word, is_subword = ref, False
        out.append({"word": word, "scores": scores[idx], "start": start, "end": end,
                    "index": idx + 1, "is_subword": is_subword})
    return out


def get_tag(name):
    if name.startswith("B-"):
        return "B", name[2:]
    if name.startswith("I-"):
        return "I", name[2:]
    return "I", name


def group_sub_entities(entities, decode):
    return {"entity_group": entities[0]["entity"].split("-", 1)[-1],
            "score": float(np.mean([e["score"] for e in entities])),
            "word": decode([e["word"] for e in entities]),
            "start": entities[0]["start"], "end": entities[-1]["end"]}


def group_entities(entities, decode):
    groups, disagg = [], []
    for e in entities:
        if not disagg:
            disagg.append(e)
            continue
        bi, tag = get_tag(e["entity"])
        _, last_tag = get_tag(disagg[-1]["entity"])
        if tag == last_tag and bi != "B":
            disagg.append(e)
        else:
            groups.append(group_sub_entities(disagg, decode))
            disagg = [e]
    if disagg:
        groups.append(group_sub_entities(disagg, decode))
    return groups


def aggregate_word(tokens, strategy, decode):
    """aggregate_word: first (the first token's scores), max (the scores of
    the token with the highest score, the first of equals), average (the
    mean of the tokens' scores)."""
    if strategy == "average":
        scores = np.nanmean(np.stack([t["scores"] for t in tokens]), axis=0)
    elif strategy == "max":
        scores = max(tokens, key=lambda t: t["scores"].max())["scores"]
    else:
        scores = tokens[0]["scores"]
    best = int(scores.argmax())
    return {"entity": TOKEN_LABELS[best], "score": float(scores[best]),
            "word": decode([t["word"] for t in tokens]),
            "start": tokens[0]["start"], "end": tokens[-1]["end"]}


def aggregate(pre, strategy, decode):
    """aggregate (none, simple) and aggregate_words + aggregate_word (first,
    average, max), then the ignore_labels ["O"] filter of postprocess."""
    if strategy in ("none", "simple"):
        entities = [{"entity": TOKEN_LABELS[int(p["scores"].argmax())],
                     "score": float(p["scores"].max()), "index": p["index"],
                     "word": p["word"], "start": p["start"], "end": p["end"]} for p in pre]
        if strategy == "none":
            return [e for e in entities if e["entity"] != "O"]
    else:
        words, group = [], None
        for p in pre:
            if group is None:
                group = [p]
            elif p["is_subword"]:
                group.append(p)
            else:
                words.append(group)
                group = [p]
        words.append(group)
        entities = [aggregate_word(g, strategy, decode) for g in words]
    return [e for e in group_entities(entities, decode) if e["entity_group"] != "O"]


AGGREGATIONS = ("none", "simple", "first", "average", "max")


def token_labels():
    """config.json's id2label and label2id for TOKEN_LABELS."""
    return {"id2label": {str(i): l for i, l in enumerate(TOKEN_LABELS)},
            "label2id": {l: i for i, l in enumerate(TOKEN_LABELS)}}


def save_token_expected(d, exp):
    """expected.json, and for rust/tests/pipelines.rs the texts and a line per
    entity (text, aggregation, label, score, start, end, index, word)."""
    dump(os.path.join(d, "expected.json"), {"labels": TOKEN_LABELS, "texts": exp})
    with open(os.path.join(d, "expected_texts.bin"), "wb") as f:
        f.write(b"".join(item["text"].encode() + b"\0" for item in exp))
    with open(os.path.join(d, "expected_entities.tsv"), "w") as f:
        for t, item in enumerate(exp):
            for k in AGGREGATIONS:
                for e in item[k]:
                    f.write(f"{t}\t{k}\t{e.get('entity', e.get('entity_group'))}\t"
                            f"{e['score']!r}\t{e['start']}\t{e['end']}\t{e.get('index', -1)}\t"
                            f"{e['word']}\n")


def token_expected(text, ids, offsets, scores, vocab, unk, wordpiece, decode):
    pre = gather_pre_entities(text, ids[1:-1], scores, offsets, vocab, unk, wordpiece)
    return {"text": text, "ids": ids, **{k: aggregate(pre, k, decode) for k in AGGREGATIONS}}


def bert_token_classifier():
    """BertForTokenClassification (modeling_bert.py: classifier on every token's
    state, dropout off; no pooler), a vocab.txt (BertTokenizerFast: WordPiece,
    continuing_subword_prefix "##", the WordPiece decoder), and the entities
    of each text by each aggregation."""
    w, cfg, g = make_bert(32, prefix="bert.")
    w = {k: v for k, v in w.items() if not k.startswith("bert.pooler.")}
    n = len(TOKEN_LABELS)
    cw, cb = (torch.randn(n, D, generator=g) * 1.5).float(), (torch.randn(n, generator=g)).float()
    cfg.update({"architectures": ["BertForTokenClassification"], **token_labels()})
    d = os.path.join(OUT, "bert_token_classifier")
    os.makedirs(d)
    save_weights(d, {**w, "classifier.weight": cw, "classifier.bias": cb})
    dump(os.path.join(d, "config.json"), cfg)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    dump(os.path.join(d, "tokenizer_config.json"), {"do_lower_case": True})
    exp = []
    for text in TOKEN_TEXTS:
        pieces = wordpiece_offsets(text)
        ids = [VOCAB.index("[CLS]")] + [i for i, _, _ in pieces] + [VOCAB.index("[SEP]")]
        x, _ = bert_forward(w, cfg, ids, [0] * len(ids), prefix="bert.")
        scores = torch.softmax(x[1:-1] @ cw.double().T + cb.double(), -1).numpy()
        exp.append(token_expected(text, ids, [(s0, e0) for _, s0, e0 in pieces], scores, VOCAB,
                                  VOCAB.index("[UNK]"), True, wordpiece_decode))
    save_token_expected(d, exp)


ROBERTA_TOKEN_TEXTS = ["CAPITALS and MiXeD case", "The quick brown fox jumps over the lazy dog.",
                       "pneumonoultramicroscopicsilicovolcanoconiosis is long",
                       "I'm sure you've seen it, haven't you? They'll say we'd DONE it."]


def roberta_token_classifier(source):
    """RobertaForTokenClassification (modeling_roberta.py: classifier on every
    token's state, dropout off) with the renumbered byte-level BPE tokenizer
    (continuing_subword_prefix "": the fallback heuristic for words; the
    ByteLevel decoder); ids and offsets from the tokenizer's reference cases."""
    with open(source[0]) as f:
        tok = json.load(f)
    by_text = {c["text"]: c for c in source[3] if "pair" not in c}
    d, w, cfg, g, new = roberta_folder("roberta_token_classifier", 33, source, "roberta",
                                       "RobertaForTokenClassification", token_labels())
    n = len(TOKEN_LABELS)
    cw = (torch.randn(n, HEAD_D, generator=g) * 1.5).float()
    cb = (torch.randn(n, generator=g)).float()
    save_weights(d, {**{"roberta." + k: v for k, v in w.items()},
                     "classifier.weight": cw, "classifier.bias": cb})
    vocab = {i: t for t, i in tok["model"]["vocab"].items()}
    exp = []
    for text in ROBERTA_TOKEN_TEXTS:
        case = by_text[text]
        ids = [new[i] for i in case["ids"]]
        x = roberta_hidden(w, cfg, ids)
        scores = torch.softmax(x[1:-1] @ cw.double().T + cb.double(), -1).numpy()
        exp.append(token_expected(text, ids, [tuple(o) for o in case["offsets"][1:-1]], scores,
                                  vocab, tok_id(tok, "<unk>"), False, byte_level_decode))
    save_token_expected(d, exp)


def tok_id(tok, content):
    return next(t["id"] for t in tok["added_tokens"] if t["content"] == content)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    roberta()
    distilbert()
    modernbert()
    roberta_source = roberta_tokenizer_source()
    singles, pairs = short_cases(roberta_source[3])
    roberta_head_folder("roberta_classifier", 21, ["negative", "neutral", "positive"], False,
                        singles[:6], roberta_source)
    roberta_head_folder("roberta_cross_encoder", 22, ["LABEL_0"], True, pairs[:6], roberta_source)
    xlmr_source = xlmr_tokenizer_source()
    singles, pairs = short_cases(xlmr_source[3], 24)
    xlmr_sentence_encoder(singles[:6])
    roberta_head_folder("xlmr_cross_encoder", 24, ["LABEL_0"], True, pairs[:6], xlmr_source,
                        "xlm-roberta", "XLMRobertaForSequenceClassification")
    distilbert_classifier()
    electra()
    electra_small()
    electra_classifier()
    bert_token_classifier()
    nomic_bert()
    bert_source = linked_tokenizer_source("bert_uncased")  # BertTokenizerFast's WordPiece
    nomic_st(short_cases(bert_source[3], 24)[0][:6])
    nomic_fuzz_seeds()
    gte()
    gte_st(short_cases(bert_source[3], 24)[0][:6])
    gte_fuzz_seeds()
    jina_bert()
    jina_st(short_cases(bert_source[3], 24)[0][:6])
    jina_fuzz_seeds()
    jina_code()
    jina_code_st(short_cases(bert_source[3], 24)[0][:6])
    jina_code_broken()
    jina_code_fuzz_seeds()
    mpnet()
    mpnet_fuzz_seeds()
    mpnet_sentence_encoder()
    mpnet_classifier()
    roberta_token_classifier(roberta_source)
    modernbert_pipelines()


if __name__ == "__main__":
    main()
