"""The corpus job on a Dask LocalCluster with 2 worker processes gives the
single-process vectors, and each worker loads the model once."""
import os
import sys

import numpy as np
import pytest

import tfenc
from conftest import ROOT

distributed = pytest.importorskip("distributed")
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
import embed_corpus  # noqa: E402


def test_local_cluster_matches_single_process(tmp_path, vocab_path, monkeypatch):
    tok = tfenc.Tokenizer(vocab_path)
    model = str(tmp_path / "model.safetensors")
    tfenc.Encoder(32, 4, 64, 2, vocab_size=tok.vocab_size, position="learned",
                  max_positions=64, seed=9).save(model)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = "the quick brown fox jumps over a lazy dog while we learn by seeing numbers".split()
    for f in range(2):
        with open(corpus / f"part{f}.txt", "w") as out:
            for i in range(30):
                out.write(" ".join(words[(i * 7 + j + f) % len(words)] for j in range(3 + i % 9)))
                out.write("\n\n" if i % 10 == 0 else "\n")  # blank lines are skipped
    documents, sources = embed_corpus.read_documents(str(corpus))
    assert len(documents) == 60 and [s["count"] for s in sources] == [30, 30]

    # the workers import the job and find the library as this process does
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [os.path.join(ROOT, "python"), os.path.join(ROOT, "python", "examples")]))
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        index = embed_corpus.embed_corpus(documents, model, vocab_path, str(tmp_path / "out"),
                                          client, partitions=6, normalize=True)
    assert index["documents"] == 60 and len(index["partitions"]) == 6
    assert [p["first"] for p in index["partitions"]] == [0, 10, 20, 30, 40, 50]
    loads = {}
    for p in index["partitions"]:
        loads[p["pid"]] = max(loads.get(p["pid"], 0), p["model_loads"])
    assert os.getpid() not in loads and set(loads.values()) == {1}, loads

    vectors = embed_corpus.load_vectors(str(tmp_path / "out"))
    single = tfenc.Encoder.from_file(model).embed(documents, tok, normalize=True)
    assert vectors.shape == (60, 32)
    assert np.abs(vectors - single).max() <= 1e-5


def test_command_line_job(tmp_path, vocab_path):
    """The script as users run it: workers share the module's model cache
    (run as __main__, its functions would be pickled with their own)."""
    import json
    import subprocess
    tok = tfenc.Tokenizer(vocab_path)
    model = str(tmp_path / "model.safetensors")
    tfenc.Encoder(16, 2, 32, 1, vocab_size=tok.vocab_size, seed=2).save(model)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"document {i} is about foxes\n" for i in range(40)))
    script = os.path.join(ROOT, "python", "examples", "embed_corpus.py")
    subprocess.run([sys.executable, script, "--model", model, "--vocab", vocab_path, "--input",
                    str(corpus), "--output", str(tmp_path / "out"), "--workers", "2",
                    "--partitions", "4"], check=True, capture_output=True, timeout=240)
    index = json.load(open(tmp_path / "out" / "index.json"))
    assert [p["model_loads"] for p in index["partitions"]] == [1, 1, 1, 1]
    assert index["sources"][0]["count"] == 40
    single = tfenc.Encoder.from_file(model).embed(corpus.read_text().splitlines(), tok)
    assert np.abs(embed_corpus.load_vectors(str(tmp_path / "out")) - single).max() <= 1e-5
