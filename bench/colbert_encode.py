#!/usr/bin/python3
"""ColBERT encode of 1000 documents: a PyLate folder shaped as
answerdotai/answerai-colbert-small-v1 (BertModel: 12 layers, hidden 384, 12
heads, intermediate 1536, 512 positions, 30522 tokens; a Dense 384 -> 96
without bias; prefixes [unused0] / [unused1]; document_length 300), with
deterministic random weights, on 1000 documents of real lengths: windows of
20 to 180 words of bench/texts/seed_article.txt, each as many tokens as
WordPiece gives English (1.3 a word, plus [CLS] and [SEP]; at most 299),
written in bench/serve_load/model.py's made-up words (one token each, its
vocabulary: no 30522-token English vocabulary is in the tree); through
tfenc.ColBERT.encode(is_query=False): documents a second, vectors a second.
The folder is written once into --model-dir (bench/compare_ort/models/, which
git ignores).

--ort adds the peer in the same run: the folder exported with torch
(bench/compare_ort/retrieval_export.py: the BERT, the Dense projection and the
L2 normalisation in the graph) run by onnxruntime-node (bench/compare_ort/
retrieval_ort_worker.js, --threads intra-op threads) on the documents as
PyLate's encode batches them (sorted by length, longest first, 32 a batch,
[CLS] [unused1] ... [SEP], padded to the batch's longest), the runs
alternating with tfenc's. ORT's time is its session.run calls (the ids are
made before); the padding and the skiplist are dropped after, as PyLate does,
and the kept vectors are checked against tfenc's (max |diff|).

    PYTHONPATH=python TFENC_LIBRARY=build/lib/libtfenc.so.0 \\
        /usr/bin/python3 bench/colbert_encode.py [--runs 3] [--ort [--threads 2]] [--save F]

tfenc.ColBERT.encode is given the documents in their order and batches them
longest first, as PyLate's encode does. --save writes the last run's kept
vectors (all documents' rows, in order, float32 [rows, 96]) to F (.npy), to
compare two builds or versions.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
sys.path.insert(0, os.path.join(HERE, "serve_load"))
from safetensors_writer import write as write_safetensors  # noqa: E402
import model as serve_model  # noqa: E402

D, H, F, L, P, V, DIM = 384, 12, 1536, 12, 512, 30522, 96
DOCUMENT_LENGTH, QUERY_LENGTH = 300, 32
SEED = 7


def vocabulary():
    """serve_load's specials and words, [unused0] and [unused1] (the prefixes) after [PAD]."""
    specials = serve_model.SPECIALS
    tokens = specials[:1] + ["[unused0]", "[unused1]"] + specials[1:]
    return tokens + serve_model.words()[:V - len(tokens)]


def write_model(d):
    """The folder as answerai-colbert-small-v1 lays it out."""
    rng = np.random.default_rng(SEED)

    def r(*shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    w = {"embeddings.word_embeddings.weight": r(V, D, scale=0.05),
         "embeddings.position_embeddings.weight": r(P, D, scale=0.05),
         "embeddings.token_type_embeddings.weight": r(2, D, scale=0.05),
         "embeddings.LayerNorm.weight": np.ones(D, np.float32),
         "embeddings.LayerNorm.bias": np.zeros(D, np.float32)}
    for l in range(L):
        p = f"encoder.layer.{l}."
        for n in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            w[p + n + ".weight"], w[p + n + ".bias"] = r(D, D, scale=D ** -0.5), r(D, scale=0.02)
        w[p + "intermediate.dense.weight"] = r(F, D, scale=D ** -0.5)
        w[p + "intermediate.dense.bias"] = r(F, scale=0.02)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(D, F, scale=F ** -0.5), \
            r(D, scale=0.02)
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + n + ".weight"], w[p + n + ".bias"] = np.ones(D, np.float32), \
                np.zeros(D, np.float32)
    os.makedirs(os.path.join(d, "1_Dense"), exist_ok=True)
    write_safetensors(os.path.join(d, "model.safetensors"), w)
    write_safetensors(os.path.join(d, "1_Dense", "model.safetensors"),
                      {"linear.weight": r(DIM, D, scale=D ** -0.5)})
    files = {
        "config.json": {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": V,
                        "hidden_size": D, "num_attention_heads": H, "intermediate_size": F,
                        "num_hidden_layers": L, "max_position_embeddings": P,
                        "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
                        "pad_token_id": 0},
        "modules.json": [{"idx": 0, "name": "0", "path": "",
                          "type": "sentence_transformers.models.Transformer"},
                         {"idx": 1, "name": "1", "path": "1_Dense",
                          "type": "pylate.models.Dense.Dense"}],
        "sentence_bert_config.json": {"max_seq_length": DOCUMENT_LENGTH - 1,
                                      "do_lower_case": False},
        "config_sentence_transformers.json": {
            "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "MaxSim",
            "query_prefix": "[unused0]", "document_prefix": "[unused1]",
            "query_length": QUERY_LENGTH, "document_length": DOCUMENT_LENGTH,
            "attend_to_expansion_tokens": False, "skiplist_words": list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")},
        "tokenizer_config.json": {"do_lower_case": True, "mask_token": "[MASK]",
                                  "pad_token": "[MASK]", "model_max_length": 512,
                                  "tokenizer_class": "BertTokenizer"},
        "1_Dense/config.json": {"in_features": D, "out_features": DIM, "bias": False,
                                "activation_function": "torch.nn.modules.linear.Identity"},
    }
    for name, obj in files.items():
        with open(os.path.join(d, name), "w") as f:
            json.dump(obj, f)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocabulary()) + "\n")


def documents(n):
    """n texts of the token counts of windows of 20..180 words of the article."""
    with open(os.path.join(HERE, "texts", "seed_article.txt"), encoding="utf-8") as f:
        words = f.read().split()
    rng = np.random.default_rng(SEED)
    lengths = []
    for _ in range(n):
        size = int(rng.integers(20, 181))
        window = words[int(rng.integers(0, len(words) - size)):][:size]
        lengths.append(min(DOCUMENT_LENGTH - 1, round(1.3 * len(window)) + 2))
    return serve_model.texts_of_lengths(lengths, SEED)


def document_ids(docs):
    """Each document's ids as the folder's tokenizer gives them (one word, one
    token; [UNK] for the 2 made-up words the vocabulary leaves out, as WordPiece
    gives a word it cannot split): [CLS] [unused1] words [SEP]."""
    index = {t: i for i, t in enumerate(vocabulary())}
    unk = index["[UNK]"]
    return [[index["[CLS]"], index["[unused1]"]] + [index.get(w, unk) for w in d.split()]
            + [index["[SEP]"]] for d in docs]


class OrtPeer:
    """The exported folder in an onnxruntime-node worker, batched as PyLate does."""

    def __init__(self, model_dir, docs, batch_size, threads, scratch):
        sys.path.insert(0, os.path.join(HERE, "compare_ort"))
        import retrieval_ort
        self.ids = document_ids(docs)
        self.order = sorted(range(len(docs)), key=lambda i: -len(self.ids[i]))
        batches = [[self.ids[i] for i in self.order[b:b + batch_size]]
                   for b in range(0, len(docs), batch_size)]
        self.worker = retrieval_ort.OrtWorker(retrieval_ort.exported("colbert", model_dir),
                                              threads)
        self.scratch, self.batches = scratch, batches
        self.input([batches[0]])
        self.worker.call("run", dump=None)  # warm-up
        self.input(batches)
        skip = json.load(open(os.path.join(model_dir, "config_sentence_transformers.json")))
        index = {t: i for i, t in enumerate(vocabulary())}
        # PyLate's convert_tokens_to_ids: a word the vocabulary lacks is [UNK]'s id
        self.skiplist = {index.get(w, index["[UNK]"]) for w in skip["skiplist_words"]}

    def input(self, batches):
        path = os.path.join(self.scratch, "colbert_ids.json")
        with open(path, "w") as f:
            json.dump(batches, f)
        self.worker.call("input", path=path)

    def run(self, dump=None):
        return self.worker.call("run", dump=dump)["ms"] / 1e3

    def dump_path(self):
        return os.path.join(self.scratch, "colbert_ort.f32")

    def vectors(self):
        """Each document's kept rows [n, DIM] in document order, from the
        outputs run(dump=dump_path()) wrote."""
        flat, at = np.fromfile(self.dump_path(), np.float32), 0
        rows = []  # each document's kept rows, in PyLate's (sorted) order
        for batch in self.batches:
            T = max(len(r) for r in batch)
            block = flat[at:at + len(batch) * T * DIM].reshape(len(batch), T, DIM)
            at += block.size
            for j, row in enumerate(batch):
                rows.append(block[j, [t for t, i in enumerate(row) if i not in self.skiplist]])
        out = [None] * len(self.ids)
        for i, r in zip(self.order, rows):
            out[i] = r
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", default=os.path.join(HERE, "compare_ort", "models",
                                                        "colbert_small"))
    ap.add_argument("--documents", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--ort", action="store_true")
    ap.add_argument("--save", help="the last run's vectors, np.save'd to this file")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.model_dir, "vocab.txt")):
        write_model(args.model_dir)
    import tfenc
    docs = documents(args.documents)
    peer = OrtPeer(args.model_dir, docs, args.batch_size, args.threads,
                   os.path.dirname(args.model_dir)) if args.ort else None
    with tfenc.ColBERT.from_dir(args.model_dir) as model:
        model.encode(docs[:args.batch_size], is_query=False)  # warm: scratch, BLAS threads
        times, ort_times = [], []
        for r in range(args.runs):
            start = time.perf_counter()
            out = model.encode(docs, is_query=False, batch_size=args.batch_size)
            times.append(time.perf_counter() - start)
            if peer:
                ort_times.append(peer.run(peer.dump_path() if r == args.runs - 1 else None))
                print(f"round: tfenc {times[-1]:.3f} s, ORT {ort_times[-1]:.3f} s", flush=True)
        truncated = model.truncated
    rows = sum(len(m) for m in out)
    if args.save:
        np.save(args.save, np.concatenate(out))
    best, median = min(times), statistics.median(times)
    info = tfenc.runtime_info()
    print(f"ColBERT encode, {len(docs)} documents ({truncated} cut at {DOCUMENT_LENGTH} tokens), "
          f"{rows} vectors of {DIM} kept; batch {args.batch_size}; {info}")
    print(f"runs: {', '.join(f'{t:.3f}' for t in times)} s; median {median:.3f} s = "
          f"{len(docs) / median:.1f} documents/s, {rows / median:.0f} vectors/s "
          f"(best {len(docs) / best:.1f} documents/s)")
    if peer:
        ort_median = statistics.median(ort_times)
        ort_out = peer.vectors()
        peer.worker.close()
        diff = max(float(np.abs(a - b).max()) for a, b in zip(out, ort_out))
        print(f"ORT ({peer.worker.loaded['runtime']}, {args.threads} intra-op threads): runs "
              f"{', '.join(f'{t:.3f}' for t in ort_times)} s; median {ort_median:.3f} s = "
              f"{len(docs) / ort_median:.1f} documents/s; tfenc/ORT documents/s "
              f"{ort_median / median:.2f}; vectors max |diff| {diff:.2e}")


if __name__ == "__main__":
    main()
