#!/usr/bin/python3
"""Embeds a corpus on a Dask cluster: one vector per document (a non-empty
line of a text file, or of every *.txt file of a directory), partitions of
documents embedded by the workers, each worker loading the model once,
every partition written as a .npy [n, d_model] plus index.json.

    PYTHONPATH=python /usr/bin/python3 python/examples/embed_corpus.py \\
        --model MODEL --vocab vocab.txt --input corpus/ --output vectors/ \\
        [--workers 2 | --scheduler tcp://host:8786] [--partitions N] \\
        [--pool mean|cls] [--normalize]
"""
import argparse
import functools
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.join(HERE, "..")
sys.path.insert(0, PACKAGE_DIR)
import tfenc  # noqa: E402

_loads = [0]  # how many times this process loaded a model


@functools.lru_cache(maxsize=4)
def _model(model, vocab, lowercase):
    """The model and tokenizer, loaded once per process (per worker)."""
    _loads[0] += 1
    return tfenc.Encoder.from_file(model), tfenc.Tokenizer(vocab, lowercase=lowercase)


def embed_partition(index, texts, model, vocab, output, pooling="mean", normalize=False,
                    lowercase=True):
    """Embeds one partition on whichever worker runs it and writes
    output/part-<index>.npy; returns what the index needs to know."""
    enc, tok = _model(model, vocab, lowercase)
    vectors = enc.embed(texts, tok, pooling=pooling, normalize=normalize)
    name = f"part-{index:05d}.npy"
    np.save(os.path.join(output, name), vectors)
    return {"index": index, "file": name, "count": len(texts), "pid": os.getpid(),
            "model_loads": _loads[0]}


def read_documents(path):
    """Non-empty lines of a file, or of a directory's *.txt files by name."""
    files = [path] if os.path.isfile(path) else sorted(
        os.path.join(path, f) for f in os.listdir(path) if f.endswith(".txt"))
    documents, sources = [], []
    for f in files:
        with open(f, encoding="utf-8") as lines:
            docs = [line.rstrip("\n") for line in lines if line.strip()]
        sources.append({"file": f, "first": len(documents), "count": len(docs)})
        documents.extend(docs)
    return documents, sources


def embed_corpus(documents, model, vocab, output, client, partitions, **options):
    """Splits documents into contiguous partitions, embeds them on the
    client's workers and writes index.json; returns the index."""
    os.makedirs(output, exist_ok=True)
    size = max(1, -(-len(documents) // partitions))
    chunks = [documents[i:i + size] for i in range(0, len(documents), size)]
    futures = [client.submit(embed_partition, k, chunk, model, vocab, output, pure=False,
                             **options) for k, chunk in enumerate(chunks)]
    parts = sorted(client.gather(futures), key=lambda p: p["index"])
    first = 0
    for p in parts:
        p["first"], first = first, first + p["count"]
    index = {"model": model, "vocab": vocab, "documents": len(documents),
             "dim": tfenc.Encoder.from_file(model).config["d_model"], "options": options,
             "partitions": parts}
    with open(os.path.join(output, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return index


def load_vectors(output):
    """All vectors of an output directory, in document order."""
    with open(os.path.join(output, "index.json")) as f:
        index = json.load(f)
    return np.concatenate([np.load(os.path.join(output, p["file"]))
                           for p in index["partitions"]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--workers", type=int, default=2, help="a LocalCluster of this many")
    ap.add_argument("--scheduler", help="an existing cluster's address instead")
    ap.add_argument("--partitions", type=int, default=0, help="default: 1 per 1000 documents")
    ap.add_argument("--pool", choices=["mean", "cls"], default="mean")
    ap.add_argument("--normalize", action="store_true")
    ap.add_argument("--cased", action="store_true")
    args = ap.parse_args()

    from distributed import Client, LocalCluster
    documents, sources = read_documents(args.input)
    partitions = args.partitions or max(1, len(documents) // 1000)
    if args.scheduler:  # its workers need tfenc installed (pip install ./python)
        client = Client(args.scheduler)
        client.upload_file(os.path.abspath(__file__))
    else:  # local workers import this module and tfenc from here
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [HERE, PACKAGE_DIR] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     dashboard_address=None))
    with client:
        index = embed_corpus(documents, os.path.abspath(args.model), os.path.abspath(args.vocab),
                             args.output, client, partitions, pooling=args.pool,
                             normalize=args.normalize, lowercase=not args.cased)
    index["sources"] = sources
    with open(os.path.join(args.output, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{index['documents']} documents -> {len(index['partitions'])} partitions of "
          f"[n, {index['dim']}] vectors in {args.output}")


if __name__ == "__main__":
    # Run as the module "embed_corpus", as the workers import it: functions of
    # __main__ would be pickled by value, each task with its own model cache.
    sys.path.insert(0, HERE)
    import embed_corpus
    embed_corpus.main()
