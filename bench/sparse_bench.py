#!/usr/bin/python3
"""SPLADE against the dense embedding of the same model and input (issue 32):
a BERT-base-shaped BertForMaskedLM (12 layers, d_model 768, 12 heads, d_ff
3072, 512 positions, BERT-base's vocabulary size 30522; random weights, the
decoder tied to the word embeddings) written once to a scratch folder, and
the same weights as a BertModel folder (mean pooling). Each workload runs in
its own process (build/bench/sparse-bench): the fastest of REPS calls after
a warm-up (the least disturbed on a shared machine), and what the calls add
to the resident memory of the loaded pipeline at their peak (VmHWM, reset
after loading, less VmRSS then). The [B, T, V] logits a batch would hold are
printed beside it: the sparse call holds one block of rows [64, V] instead.

--ort adds the peer: the same weights exported with torch (bench/compare_ort/
retrieval_export.py: the masked-LM head and the SPLADE pooling in the graph;
the dense model with its mean pooling) run by onnxruntime-node (bench/
compare_ort/retrieval_ort_worker.js, --threads intra-op threads), one session
for each workload and model. ROUNDS rounds alternate tfenc dense, ORT dense,
tfenc SPLADE, ORT SPLADE; each side's time is the median over the rounds of
the fastest of REPS calls in a round; ORT's memory is what the calls add to
its process's resident memory after loading at their peak (VmHWM), measured
as tfenc's. The vectors are checked against tfenc.SparseEncoder's (max |diff|).

    /usr/bin/python3 bench/sparse_bench.py [--build build] [--reps 7]
        [--dir /tmp/tfenc-sparse-bench] [--ort [--rounds 3] [--threads 2]]"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "golden"))
from safetensors_writer import encode as encode_safetensors  # noqa: E402

V, D, H, F, L, P = 30522, 768, 12, 3072, 12, 512
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_base_weights(seed=0):
    """BertForMaskedLM's tensors, N(0, 0.02) as BERT initialises them, LayerNorms 1 and 0."""
    rng = np.random.default_rng(seed)

    def r(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02)
    w = {"bert.embeddings.word_embeddings.weight": r(V, D),
         "bert.embeddings.position_embeddings.weight": r(P, D),
         "bert.embeddings.token_type_embeddings.weight": r(2, D),
         "bert.embeddings.LayerNorm.weight": np.ones(D, np.float32),
         "bert.embeddings.LayerNorm.bias": np.zeros(D, np.float32)}
    for l in range(L):
        p = f"bert.encoder.layer.{l}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(D, D), r(D)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = r(F, D), r(F)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(D, F), r(D)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = np.ones(D, np.float32), r(D)
    w["cls.predictions.transform.dense.weight"] = r(D, D)
    w["cls.predictions.transform.dense.bias"] = r(D)
    w["cls.predictions.transform.LayerNorm.weight"] = np.ones(D, np.float32)
    w["cls.predictions.transform.LayerNorm.bias"] = r(D)
    w["cls.predictions.bias"] = r(V)
    return w


def write_folders(root):
    """root/mlm (BertForMaskedLM) and root/dense (BertModel, the same file linked)."""
    mlm, dense = os.path.join(root, "mlm"), os.path.join(root, "dense")
    if os.path.exists(os.path.join(dense, "config.json")):
        return mlm, dense
    for d in (mlm, dense):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(mlm, "model.safetensors"), "wb") as f:
        f.write(encode_safetensors(bert_base_weights()))
    vocab = SPECIALS + [f"w{i}" for i in range(V - len(SPECIALS))]
    for d, arch in ((mlm, "BertForMaskedLM"), (dense, "BertModel")):
        cfg = {"model_type": "bert", "architectures": [arch], "vocab_size": V, "hidden_size": D,
               "num_attention_heads": H, "intermediate_size": F, "num_hidden_layers": L,
               "max_position_embeddings": P, "type_vocab_size": 2, "hidden_act": "gelu",
               "layer_norm_eps": 1e-12, "pad_token_id": 0}
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)
        with open(os.path.join(d, "vocab.txt"), "w") as f:
            f.write("\n".join(vocab) + "\n")
    os.symlink(os.path.join(mlm, "model.safetensors"), os.path.join(dense, "model.safetensors"))
    return mlm, dense


def write_texts(root):
    """one.txt: one text of 128 tokens; batch.txt: 32 texts of 16..128 tokens
    (uniform, seeded), each word one vocabulary entry."""
    rng = np.random.default_rng(1)

    def text(tokens):  # [CLS] and [SEP] around tokens - 2 words
        return " ".join(f"w{i}" for i in rng.integers(0, V - len(SPECIALS), tokens - 2))
    paths = {"1x128": os.path.join(root, "one.txt"),
             "32 real-length": os.path.join(root, "batch.txt")}
    with open(paths["1x128"], "w") as f:
        f.write(text(128) + "\n")
    lengths = rng.integers(16, 129, 32)
    with open(paths["32 real-length"], "w") as f:
        f.write("".join(text(int(n)) + "\n" for n in lengths))
    return paths, {"1x128": (1, 128), "32 real-length": (32, int(lengths.max()))}


def run(exe, folder, mode, texts, reps):
    out = subprocess.run([exe, folder, mode, texts, str(reps)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def token_ids(path):
    """Each text's ids as the folders' vocabulary gives them: [CLS] w<i>... [SEP]."""
    cls, sep = SPECIALS.index("[CLS]"), SPECIALS.index("[SEP]")
    with open(path) as f:
        return [[cls] + [len(SPECIALS) + int(w[1:]) for w in line.split()] + [sep]
                for line in f]


def ort_side(worker, reps):
    """The fastest of reps calls of the worker's session on its input."""
    return min(worker.call("run", dump=None)["ms"] for _ in range(reps))


def tfenc_sparse(build, mlm, texts):
    """tfenc.SparseEncoder's vectors of the texts, dense [B, V]."""
    os.environ["TFENC_LIBRARY"] = os.path.join(build, "lib", "libtfenc.so.0")
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import tfenc
    with tfenc.SparseEncoder(mlm) as model:
        vectors = model.encode(texts, batch_size=len(texts), convert_to_sparse_tensor=False)
    print(f"<!-- tfenc {tfenc.runtime_info()} -->")
    return vectors


def with_ort(a, exe, mlm, dense, paths, shapes):
    """The tfenc and ORT table (--ort)."""
    sys.path.insert(0, os.path.join(HERE, "compare_ort"))
    import retrieval_ort
    onnx = {"dense": retrieval_ort.exported("dense", dense),
            "sparse": retrieval_ort.exported("splade", mlm)}
    folder = {"dense": dense, "sparse": mlm}
    print("| workload | tfenc dense ms | tfenc SPLADE ms | tfenc SPLADE/dense | ORT dense ms "
          "| ORT SPLADE ms | ORT SPLADE/dense | SPLADE tfenc/ORT | tfenc dense peak MiB "
          "| tfenc SPLADE peak MiB | ORT dense peak MiB | ORT SPLADE peak MiB | [B, T, V] MiB "
          "| max abs diff |")
    print("|---" * 14 + "|")
    for name, texts in paths.items():
        ids = token_ids(texts)
        batch = os.path.join(a.dir, "ids.json")
        with open(batch, "w") as f:
            json.dump([ids], f)
        workers, tf_ms, ort_ms, tf_peak, ort_peak = {}, {}, {}, {}, {}
        for mode in ("dense", "sparse"):
            w = workers[mode] = retrieval_ort.OrtWorker(onnx[mode], a.threads)
            w.call("input", path=batch)
            w.call("reset_peak")
            w.call("run", dump=None)  # warm-up, as sparse-bench's
            tf_ms[mode], ort_ms[mode] = [], []
        for _ in range(a.rounds):
            for mode in ("dense", "sparse"):
                r = run(exe, folder[mode], mode, texts, a.reps)
                tf_ms[mode].append(r["ms"])
                tf_peak[mode] = max(tf_peak.get(mode, 0), r["peak_kib"] - r["loaded_kib"])
                ort_ms[mode].append(ort_side(workers[mode], a.reps))
        for mode, w in workers.items():
            m = w.call("rss")
            ort_peak[mode] = m["peak_kb"] - w.loaded["rss_kb"]
        out = os.path.join(a.dir, "ort_sparse.f32")
        workers["sparse"].call("run", dump=out)
        for w in workers.values():
            w.close()
        ort_vectors = np.fromfile(out, np.float32).reshape(len(ids), V)
        with open(texts) as f:
            diff = np.abs(ort_vectors - tfenc_sparse(a.build, mlm, f.read().splitlines())).max()
        t = {k: statistics.median(v) for k, v in tf_ms.items()}
        o = {k: statistics.median(v) for k, v in ort_ms.items()}
        B, T = shapes[name]
        print(f"| {name} | {t['dense']:.1f} | {t['sparse']:.1f} | {t['sparse'] / t['dense']:.2f} "
              f"| {o['dense']:.1f} | {o['sparse']:.1f} | {o['sparse'] / o['dense']:.2f} "
              f"| {t['sparse'] / o['sparse']:.2f} | {tf_peak['dense'] / 1024:.1f} "
              f"| {tf_peak['sparse'] / 1024:.1f} | {ort_peak['dense'] / 1024:.1f} "
              f"| {ort_peak['sparse'] / 1024:.1f} "
              f"| {B * T * V * 4 / 2**20:.0f} | {diff:.2e} |", flush=True)
        print(f"<!-- {name}: tfenc dense {tf_ms['dense']}, SPLADE {tf_ms['sparse']}; ORT dense "
              f"{ort_ms['dense']}, SPLADE {ort_ms['sparse']} (ms, each round) -->", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--dir", default="/tmp/tfenc-sparse-bench")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--ort", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench", "sparse-bench")
    mlm, dense = write_folders(a.dir)
    paths, shapes = write_texts(a.dir)
    if a.ort:
        with_ort(a, exe, mlm, dense, paths, shapes)
        return
    print("| workload | dense ms | SPLADE ms | ratio | dense calls' peak MiB "
          "| SPLADE calls' peak MiB | [B, T, V] logits MiB |")
    print("|---|---|---|---|---|---|---|")
    for name, texts in paths.items():
        d = run(exe, dense, "dense", texts, a.reps)
        s = run(exe, mlm, "sparse", texts, a.reps)
        B, T = shapes[name]
        print(f"| {name} | {d['ms']:.1f} | {s['ms']:.1f} | {s['ms'] / d['ms']:.2f} "
              f"| {(d['peak_kib'] - d['loaded_kib']) / 1024:.1f} "
              f"| {(s['peak_kib'] - s['loaded_kib']) / 1024:.1f} "
              f"| {B * T * V * 4 / 2**20:.0f} |")


if __name__ == "__main__":
    main()
