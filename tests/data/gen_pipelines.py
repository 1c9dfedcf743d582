#!/usr/bin/python3
"""Writes tests/data/pipelines/: model folders as the Hugging Face hub holds
them (sentence-transformers pipelines, one laid out as all-MiniLM-L6-v2 with
max_seq_length 256 below 512 positions, a cross-encoder, a classifier), with
small random BERT weights under BERT's real tensor names, and expected.json:
the token ids and the outputs computed in float64 by the references below
from exactly the float32 weights stored. transformers and sentence-
transformers cannot be installed here, so each reference follows the
upstream source it names:
  bert_forward           transformers/models/bert/modeling_bert.py: BertEmbeddings,
                         BertSelfAttention (eager), BertSelfOutput, BertIntermediate,
                         BertOutput, BertPooler
  classify               modeling_bert.py BertForSequenceClassification.forward
                         (pooler_output -> dropout (off) -> classifier)
  pool                   sentence_transformers/models/Pooling.py Pooling.forward
  dense                  sentence_transformers/models/Dense.py Dense.forward
  normalize              sentence_transformers/models/Normalize.py (F.normalize p=2)
  prompt_length          sentence_transformers/models/Transformer.py / SentenceTransformer.encode:
                         the prompt's ids without the final [SEP]
  truncate + renormalise SentenceTransformer.encode: truncate_embeddings, then normalize
  score / probabilities  CrossEncoder.predict (Sigmoid for one label); transformers'
                         TextClassificationPipeline.postprocess (softmax, single-label)
The tokenizer is a plain WordPiece over lower-case ASCII texts (libtfenc's own
matches BertTokenizerFast elsewhere; here the ids are stored and the tests
check them too).

    /usr/bin/python3 tests/data/gen_pipelines.py"""
import json
import math
import os
import shutil
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "pipelines")
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
from safetensors_writer import write as write_safetensors  # noqa: E402

torch.set_default_dtype(torch.float64)

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("the a cat dog sat on mat runs fast where is big red house hello world quick brown fox "
         "jumps over lazy and query passage how many legs does have four it what colour sky blue "
         "grass green good bad movie was not i liked").split()
VOCAB = SPECIALS + list(".,?!:") + WORDS + ["##s", "##ing", "##ed"]
IDS = {t: i for i, t in enumerate(VOCAB)}


def wordpiece(text):
    """BERT's basic tokenizer on lower-case ASCII (split on spaces and
    punctuation), then greedy longest-match WordPiece."""
    words, cur = [], ""
    for ch in text.lower():
        if ch.isspace() or ch in ".,?!:":
            if cur:
                words.append(cur)
            cur = ""
            if not ch.isspace():
                words.append(ch)
        else:
            cur += ch
    if cur:
        words.append(cur)
    ids = []
    for w in words:
        start, pieces = 0, []
        while start < len(w):
            end = len(w)
            while end > start and ((w[start:end] if start == 0 else "##" + w[start:end]) not in IDS):
                end -= 1
            if end == start:
                pieces = [IDS["[UNK]"]]
                break
            pieces.append(IDS[w[start:end] if start == 0 else "##" + w[start:end]])
            start = end
        ids += pieces
    return ids


def encode(text, pair=None, max_len=None):
    """[CLS] a [SEP] (b [SEP]), cut longest-first to max_len; ids, types, cut?"""
    a, b = wordpiece(text), wordpiece(pair) if pair is not None else None
    room = None if max_len is None else max_len - (3 if b is not None else 2)
    cut = False
    while room is not None and len(a) + (len(b) if b else 0) > room:
        cut = True
        if b and len(b) > len(a):
            b.pop()
        else:
            a.pop()
    ids = [IDS["[CLS]"]] + a + [IDS["[SEP]"]]
    types = [0] * len(ids)
    if b is not None:
        ids += b + [IDS["[SEP]"]]
        types += [1] * (len(b) + 1)
    return ids, types, cut


# ---- BERT (modeling_bert.py), float64 --------------------------------------------------

def make_bert(seed, D=16, H=2, F=32, L=2, P=32, prefix="", V=len(VOCAB)):
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale=0.3):
        return (torch.randn(*shape, generator=g) * scale).float()
    w = {}
    w["embeddings.word_embeddings.weight"] = r(V, D, scale=1.0)
    w["embeddings.position_embeddings.weight"] = r(P, D, scale=0.5)
    w["embeddings.token_type_embeddings.weight"] = r(2, D, scale=0.5)
    w["embeddings.LayerNorm.weight"] = 1 + r(D, scale=0.1)
    w["embeddings.LayerNorm.bias"] = r(D, scale=0.1)
    for l in range(L):
        p = f"encoder.layer.{l}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            w[p + name + ".weight"] = r(D, D, scale=1 / math.sqrt(D))
            w[p + name + ".bias"] = r(D, scale=0.1)
        w[p + "attention.output.LayerNorm.weight"] = 1 + r(D, scale=0.1)
        w[p + "attention.output.LayerNorm.bias"] = r(D, scale=0.1)
        w[p + "intermediate.dense.weight"] = r(F, D, scale=1 / math.sqrt(D))
        w[p + "intermediate.dense.bias"] = r(F, scale=0.1)
        w[p + "output.dense.weight"] = r(D, F, scale=1 / math.sqrt(F))
        w[p + "output.dense.bias"] = r(D, scale=0.1)
        w[p + "output.LayerNorm.weight"] = 1 + r(D, scale=0.1)
        w[p + "output.LayerNorm.bias"] = r(D, scale=0.1)
    w["pooler.dense.weight"] = r(D, D, scale=1 / math.sqrt(D))
    w["pooler.dense.bias"] = r(D, scale=0.1)
    cfg = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": V,
           "hidden_size": D, "num_attention_heads": H, "intermediate_size": F,
           "num_hidden_layers": L, "max_position_embeddings": P, "type_vocab_size": 2,
           "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0}
    return {prefix + k: v for k, v in w.items()}, cfg, g


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def bert_forward(w, cfg, ids, types, prefix="", positions=None, keys=None):
    """last_hidden_state [T, D] and pooler_output [D] of one unpadded sequence
    (padding is masked out of every real token's attention, so one sequence
    alone gives the padded batch's real rows); positions: 0..T-1 unless given
    (RoBERTa's, gen_families.py); an ELECTRA's E-wide embeddings projected by
    its embeddings_project (modeling_electra.py ElectraModel.forward) when
    w has one; keys: every token attends to the first `keys` tokens only
    (the extended attention mask of padding the rows after them still
    compute, as PyLate's unattended query expansion has it)."""
    def W(name):
        return w[prefix + name].double()
    eps, H = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    T = len(ids)
    x = W("embeddings.word_embeddings.weight")[torch.tensor(ids)]
    x = x + W("embeddings.position_embeddings.weight")[
        torch.tensor(positions if positions is not None else list(range(T)))]
    x = x + W("embeddings.token_type_embeddings.weight")[torch.tensor(types)]
    x = layer_norm(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), eps)
    if prefix + "embeddings_project.weight" in w:  # ElectraModel.forward: E -> D
        x = x @ W("embeddings_project.weight").T + W("embeddings_project.bias")
    D = x.shape[1]
    dk = D // H
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."

        def lin(name, v):
            return v @ W(p + name + ".weight").T + W(p + name + ".bias")
        q = lin("attention.self.query", x).view(T, H, dk).transpose(0, 1)
        k = lin("attention.self.key", x).view(T, H, dk).transpose(0, 1)
        v = lin("attention.self.value", x).view(T, H, dk).transpose(0, 1)
        scores = q @ k.transpose(1, 2) / math.sqrt(dk)
        if keys is not None:
            scores[:, :, keys:] = -math.inf
        att = torch.softmax(scores, dim=-1)
        ctx = (att @ v).transpose(0, 1).reshape(T, D)
        x = layer_norm(lin("attention.output.dense", ctx) + x,
                       W(p + "attention.output.LayerNorm.weight"),
                       W(p + "attention.output.LayerNorm.bias"), eps)
        h = lin("intermediate.dense", x)
        h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
        x = layer_norm(lin("output.dense", h) + x, W(p + "output.LayerNorm.weight"),
                       W(p + "output.LayerNorm.bias"), eps)
    if prefix + "pooler.dense.weight" not in w:  # a model without BertPooler
        return x, None
    pooled = torch.tanh(x[0] @ W("pooler.dense.weight").T + W("pooler.dense.bias"))
    return x, pooled


# ---- sentence-transformers' modules ----------------------------------------------------

def pool(x, mode, first=0):
    """Pooling.forward for one sequence x [T, D] with attention_mask 1 from
    `first` (include_prompt false masks [0, prompt_length))."""
    T = x.shape[0]
    mask = torch.ones(T)
    mask[:first] = 0
    m = mask[:, None]
    if mode == "cls":
        return x[0]
    if mode == "max":
        return torch.where(m == 0, torch.tensor(-1e9), x).max(0)[0]
    if mode in ("mean", "mean_sqrt_len_tokens"):
        s, n = (x * m).sum(0), torch.clamp(m.sum(0), min=1e-9)
        return s / n if mode == "mean" else s / torch.sqrt(n)
    if mode == "weightedmean":
        wm = m * torch.arange(1, T + 1).double()[:, None]
        return (x * wm).sum(0) / torch.clamp(wm.sum(0), min=1e-9)
    if mode == "lasttoken":
        return x[int(mask.nonzero().max())]
    raise ValueError(mode)


def normalize(v):
    return v / max(float(torch.linalg.norm(v)), 1e-12)


ACTS = {"torch.nn.modules.activation.Tanh": torch.tanh,
        "torch.nn.modules.linear.Identity": lambda v: v}


# ---- Writing folders -------------------------------------------------------------------

def folder(name):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    return d


def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def dump_for_rust(d, texts, out):
    """What rust/tests/pipelines.rs reads (the crate has no JSON reader):
    expected_texts.bin, the inputs NUL-terminated one after another (a pair:
    its text, then its second segment), and expected_out.npy, the outputs
    [inputs, width] as float32."""
    with open(os.path.join(d, "expected_texts.bin"), "wb") as f:
        for t in texts:
            for part in ([t] if isinstance(t, str) else [p for p in t if p is not None]):
                f.write(part.encode() + b"\0")
    np.save(os.path.join(d, "expected_out.npy"), np.array(out, dtype=np.float32))


def save_bert(d, w, cfg):
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: v.numpy().astype(np.float32) for k, v in w.items()})
    dump(os.path.join(d, "config.json"), cfg)
    dump(os.path.join(d, "tokenizer_config.json"),
         {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})


def floats(t):
    return [float(v) for v in t.reshape(-1)]


TEXTS = ["the cat sat on the mat.", "a dog runs fast!", "where is the big red house?",
         "hello world", "the quick brown fox jumps over the lazy dog and the cat sat on the mat"]
MODES = ["cls", "max", "mean", "mean_sqrt_len_tokens", "weightedmean", "lasttoken"]


def st_modules(*steps):
    """modules.json as sentence-transformers writes it: the Transformer at the
    folder's root, then each (path, class in sentence_transformers.models)."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]
    for idx, (path, kind) in enumerate(steps, 1):
        modules.append({"idx": idx, "name": str(idx), "path": path,
                        "type": "sentence_transformers.models." + kind})
    return modules


MEAN_NORMALIZE = (("1_Pooling", "Pooling"), ("2_Normalize", "Normalize"))


def st_mean_norm():
    """BERT + mean pooling + Normalize, max_seq_length 12, two prompts."""
    d = folder("st_mean_norm")
    w, cfg, _ = make_bert(1)
    save_bert(d, w, cfg)
    dump(os.path.join(d, "modules.json"), st_modules(*MEAN_NORMALIZE))
    dump(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": 12, "do_lower_case": False})
    pooling = {"word_embedding_dimension": 16, "pooling_mode_cls_token": False,
               "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
               "pooling_mode_mean_sqrt_len_tokens": False,
               "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False,
               "include_prompt": True}
    dump(os.path.join(d, "1_Pooling", "config.json"), pooling)
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"__version__": {"sentence_transformers": "3.0.0"},
          "prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": None,
          "similarity_fn_name": "cosine"})
    exp = {"texts": TEXTS, "max_seq_length": 12, "dim": 16}
    for key, prompt in (("plain", ""), ("query", "query: ")):
        ids, vecs, cut = [], [], 0
        for t in TEXTS:
            i, ty, c = encode(prompt + t, max_len=12)
            x, _ = bert_forward(w, cfg, i, ty)
            ids.append(i)
            vecs.append(normalize(pool(x, "mean")))
            cut += c
        exp[key] = {"ids": ids, "embeddings": [floats(v) for v in vecs], "truncated": cut}
    exp["dims8"] = [floats(normalize(torch.tensor(v[:8]))) for v in exp["plain"]["embeddings"]]
    dump_for_rust(d, TEXTS, exp["plain"]["embeddings"])
    # every pooling mode over the hidden states of the plain texts (tf_pool)
    hidden, lengths = [], []
    T = max(len(i) for i in exp["plain"]["ids"])
    for i in exp["plain"]["ids"]:
        x, _ = bert_forward(w, cfg, i, [0] * len(i))
        hidden.append(torch.cat([x, torch.zeros(T - len(i), 16)]).float().double())
        lengths.append(len(i))
    exp["hidden"] = {"T": T, "lengths": lengths, "values": floats(torch.stack(hidden))}
    exp["modes"] = {m: [floats(pool(h[:n], m)) for h, n in zip(hidden, lengths)] for m in MODES}
    dump(os.path.join(d, "expected.json"), exp)


def st_dense():
    """mean + max + lasttoken pooling without the prompt, two Dense, no Normalize."""
    d = folder("st_dense")
    w, cfg, g = make_bert(2)
    save_bert(d, w, cfg)
    dump(os.path.join(d, "modules.json"),
         st_modules(("1_Pooling", "Pooling"), ("2_Dense", "Dense"), ("3_Dense", "Dense")))
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": 16, "pooling_mode_mean_tokens": True,
          "pooling_mode_max_tokens": True, "pooling_mode_lasttoken": True,
          "include_prompt": False})
    dense = [("2_Dense", 48, 8, True, "torch.nn.modules.activation.Tanh"),
             ("3_Dense", 8, 6, False, "torch.nn.modules.linear.Identity")]
    layers = []
    for path, fin, fout, bias, act in dense:
        lw = (torch.randn(fout, fin, generator=g) / math.sqrt(fin)).float()
        tensors = {"linear.weight": lw.numpy()}
        lb = None
        if bias:
            lb = (torch.randn(fout, generator=g) * 0.2).float()
            tensors["linear.bias"] = lb.numpy()
        os.makedirs(os.path.join(d, path))
        write_safetensors(os.path.join(d, path, "model.safetensors"), tensors)
        dump(os.path.join(d, path, "config.json"),
             {"in_features": fin, "out_features": fout, "bias": bias, "activation_function": act})
        layers.append((lw.double(), None if lb is None else lb.double(), ACTS[act]))
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"prompts": {"query": "query: "}, "default_prompt_name": "query",
          "similarity_fn_name": "dot"})
    exp = {"texts": TEXTS[:4], "dim": 6}
    for key, prompt in (("default", "query: "), ("none", "")):
        skip = len(encode(prompt)[0]) - 1 if prompt else 0  # [CLS] + the prompt's tokens
        vecs = []
        for t in TEXTS[:4]:
            i, ty, _ = encode(prompt + t)
            x, _ = bert_forward(w, cfg, i, ty)
            v = torch.cat([pool(x, m, skip) for m in ("max", "mean", "lasttoken")])
            for lw, lb, act in layers:
                v = act(v @ lw.T + (lb if lb is not None else 0))
            vecs.append(v)
        exp[key] = [floats(v) for v in vecs]
    dump(os.path.join(d, "expected.json"), exp)


def st_minilm():
    """As sentence-transformers/all-MiniLM-L6-v2 is laid out: BertModel with 512
    positions, max_seq_length 256 (sentence_bert_config.json) below them, mean
    pooling, Normalize; one text of more than 256 tokens, cut to 256."""
    d = folder("st_minilm")
    w, cfg, _ = make_bert(5, P=512)
    save_bert(d, w, cfg)
    dump(os.path.join(d, "modules.json"), st_modules(*MEAN_NORMALIZE))
    dump(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": 256, "do_lower_case": False})
    dump(os.path.join(d, "1_Pooling", "config.json"),
         {"word_embedding_dimension": 16, "pooling_mode_mean_tokens": True})
    texts = ["the cat sat on the mat.", " ".join(["the quick brown fox jumps over the lazy dog"] * 30)]
    vecs, ids, cut = [], [], 0
    for t in texts:
        i, ty, c = encode(t, max_len=256)
        vecs.append(normalize(pool(bert_forward(w, cfg, i, ty)[0], "mean")))
        ids.append(i)
        cut += c
    dump(os.path.join(d, "expected.json"), {"texts": texts, "ids": ids, "truncated": cut,
                                            "embeddings": [floats(v) for v in vecs]})
    dump_for_rust(d, texts, [floats(v) for v in vecs])


def head_folder(name, seed, labels, problem, prefix, st_object, inputs):
    d = folder(name)
    w, cfg, g = make_bert(seed, prefix=prefix)
    n = len(labels)
    cw = (torch.randn(n, 16, generator=g) * 0.8).float()
    cb = (torch.randn(n, generator=g) * 0.3).float()
    w["classifier.weight"], w["classifier.bias"] = cw, cb
    cfg["architectures"] = ["BertForSequenceClassification"]
    cfg["id2label"] = {str(i): l for i, l in enumerate(labels)}
    cfg["label2id"] = {l: i for i, l in enumerate(labels)}
    if problem:
        cfg["problem_type"] = problem
    if st_object:
        cfg["sentence_transformers"] = {"activation_fn": "torch.nn.modules.activation.Sigmoid"}
    save_bert(d, w, cfg)
    out, ids = [], []
    for text, pair in inputs:
        i, ty, _ = encode(text, pair)
        _, pooled = bert_forward(w, cfg, i, ty, prefix)
        logits = pooled @ cw.double().T + cb.double()
        out.append(torch.sigmoid(logits) if n == 1 else torch.softmax(logits, 0))
        ids.append(i)
    dump(os.path.join(d, "expected.json"),
         {"inputs": inputs, "labels": labels, "ids": ids, "out": [floats(v) for v in out]})
    dump_for_rust(d, inputs, [floats(v) for v in out])


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    st_mean_norm()
    st_dense()
    st_minilm()
    query = "how many legs does a dog have?"
    head_folder("cross_encoder", 3, ["LABEL_0"], None, "bert.", True,
                [[query, "a dog has four legs."], [query, "the sky is blue."],
                 [query, "the cat sat on the mat."], [query, "dogs have four legs and run fast."]])
    head_folder("classifier", 4, ["negative", "neutral", "positive"],
                "single_label_classification", "bert.", False,
                [["i liked the movie.", None], ["the movie was bad.", None],
                 ["it was not good.", None]])


if __name__ == "__main__":
    main()
