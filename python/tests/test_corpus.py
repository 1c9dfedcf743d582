"""The corpus job (python/examples/embed_corpus.py) on a Dask LocalCluster of 2 worker
processes: the vectors of a single-process run of the same folder pipeline, a resumed run that
computes only the partitions not finished, a worker killed mid-run, the command line, and bad
input that changes nothing in the output folder."""
import contextlib
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA, ROOT

distributed = pytest.importorskip("distributed")
EXAMPLES = os.path.join(ROOT, "python", "examples")
sys.path.insert(0, EXAMPLES)
import embed_corpus  # noqa: E402

# tokenizer.json, prompts query/document, Normalize, max_seq_length 64, dim 8
MODERNBERT = os.path.join(DATA, "families", "modernbert_st")
# vocab.txt, two Dense modules (dim 6), default prompt "query", max_seq_length 32
ST_DENSE = os.path.join(DATA, "pipelines", "st_dense")
WORDS = "the quick brown fox jumps over a lazy dog while we learn by seeing numbers".split()
LONG = 7  # the document longer than either model's max_seq_length


def corpus(n=30):
    """n documents of 3 to 11 words; documents[LONG] of 200."""
    docs = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + i % 9)) for i in range(n)]
    docs[LONG] = " ".join(WORDS[j % len(WORDS)] for j in range(200))
    return docs


def single_process(model, documents, prompt_name=None, normalize=False):
    """[len(documents), dim]: the job's pipeline and options in this process, in one call."""
    return embed_corpus._encode(embed_corpus._load(model), documents, prompt_name, normalize, 32)


def snapshot(folder):
    """{name: bytes} of every file in folder."""
    return {name: open(os.path.join(folder, name), "rb").read() for name in os.listdir(folder)}


def records(output):
    """[partition k's record] from output's part-*.json."""
    with open(os.path.join(output, "index.json")) as f:
        n = len(json.load(f)["partitions"])
    return [json.load(open(os.path.join(output, f"part-{k:05d}.json"))) for k in range(n)]


def job_files(partitions):
    """The names a finished output folder holds: no more, no less."""
    return {"job.json", "index.json"} | {f"part-{k:05d}{ext}" for k in range(partitions)
                                         for ext in (".npy", ".json")}


@contextlib.contextmanager
def local_cluster():
    """A Client on 2 worker processes, which import tfenc, the job and this module from here."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYTHONPATH", os.pathsep.join(
            [os.path.join(ROOT, "python"), EXAMPLES, os.path.dirname(__file__)]))
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


@pytest.mark.parametrize("model, options", [
    (MODERNBERT, {"prompt_name": "query"}),
    (MODERNBERT, {"prompt_name": "document", "normalize": True}),
    (ST_DENSE, {}),  # the folder's default prompt
], ids=["tokenizer_json-prompt-Normalize", "normalize", "Dense"])
def test_local_cluster_matches_single_process(client, tmp_path, model, options):
    documents, out = corpus(), str(tmp_path / "out")
    index = embed_corpus.embed_corpus(documents, model, out, client, partitions=4, **options)
    assert [(p["first"], p["count"]) for p in index["partitions"]] == [(0, 7), (7, 8), (15, 7),
                                                                       (22, 8)]
    assert index["truncated"] == 1  # documents[LONG], cut to max_seq_length, not an error
    assert set(os.listdir(out)) == job_files(4)

    vectors = embed_corpus.load_vectors(out)
    expected = single_process(model, documents, **options)
    assert vectors.shape == expected.shape == (30, 8 if model == MODERNBERT else 6)
    assert np.abs(vectors - expected).max() <= 1e-6
    if model == MODERNBERT:  # Normalize module or normalize: unit vectors
        assert np.abs(np.linalg.norm(vectors, axis=1) - 1).max() <= 1e-6
    other = {"query": "document", "document": "query", None: "document"}[
        options.get("prompt_name")]  # ST_DENSE's "document" prompt is empty
    other_prompt = single_process(model, documents, other, options.get("normalize", False))
    assert np.abs(vectors - other_prompt).max() > 1e-3  # the prompt reached the workers

    loads = {}  # the model loaded once per worker process: its count the same in each record
    for r in records(out):
        loads.setdefault(r["pid"], set()).add(r["model_loads"])
    assert os.getpid() not in loads and all(len(n) == 1 for n in loads.values()), loads


def test_rerun_resumes_computing_only_unfinished_partitions(client, tmp_path):
    documents, out = corpus(), str(tmp_path / "out")
    first = embed_corpus.embed_corpus(documents, MODERNBERT, out, client, partitions=5,
                                      prompt_name="query")
    full = embed_corpus.load_vectors(out)
    # an interrupted run: partition 1 never written, partition 3's .npy not the one its record
    # describes, a dead writer's temporary file, no index; then a document of partition 2 edited
    for ext in (".npy", ".json"):
        os.remove(os.path.join(out, f"part-00001{ext}"))
    np.save(os.path.join(out, "part-00003.npy"), np.zeros((6, 8), np.float32))
    with open(os.path.join(out, ".part-00002.npy." + "0" * 32 + ".tmp"), "wb") as f:
        f.write(b"\x93NUMPY")
    os.remove(os.path.join(out, "index.json"))
    documents[13] = "a document edited between the runs"

    second = embed_corpus.embed_corpus(documents, MODERNBERT, out, client, partitions=5,
                                       prompt_name="query")
    assert [r["run"] for r in records(out)] == [first["run"], second["run"], second["run"],
                                               second["run"], first["run"]]
    assert set(os.listdir(out)) == job_files(5)
    vectors = embed_corpus.load_vectors(out)
    assert np.abs(vectors - single_process(MODERNBERT, documents, "query")).max() <= 1e-6
    kept = np.r_[0:6, 24:30]  # partitions 0 and 4: their files as the first run wrote them
    assert np.array_equal(vectors[kept], full[kept])

    parts = {k: v for k, v in snapshot(out).items() if k.startswith("part-")}
    third = embed_corpus.embed_corpus(documents, MODERNBERT, out, client, partitions=5,
                                      prompt_name="query")
    assert third["run"] != second["run"]
    assert {k: v for k, v in snapshot(out).items() if k.startswith("part-")} == parts


def _die_after_first_npy(marker):
    """In each worker: the first partition .npy that any of them writes is followed by SIGKILL
    of the process that wrote it, before the partition's record; marker (created once) says
    which process and file."""
    write = embed_corpus._write_atomic

    def write_then_die(path, data):
        write(path, data)
        if not path.endswith(".npy"):
            return
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return
        os.write(fd, json.dumps({"pid": os.getpid(), "file": os.path.basename(path)}).encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)

    embed_corpus._write_atomic = write_then_die


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path):
    documents, out, marker = corpus(), str(tmp_path / "out"), str(tmp_path / "killed")
    with local_cluster() as client:
        client.run(_die_after_first_npy, marker)
        index = embed_corpus.embed_corpus(documents, MODERNBERT, out, client, partitions=6,
                                          prompt_name="query")
        worker_pids = set(client.run(os.getpid).values())
    killed = json.load(open(marker))
    assert killed["pid"] not in worker_pids  # the worker died; Dask ran its task elsewhere

    assert set(os.listdir(out)) == job_files(6)  # each partition once, no temporary left
    assert [(p["first"], p["count"]) for p in index["partitions"]] == [(5 * k, 5)
                                                                       for k in range(6)]
    redone = records(out)[int(killed["file"][5:10])]
    assert redone["pid"] != killed["pid"]
    vectors = embed_corpus.load_vectors(out)
    assert np.abs(vectors - single_process(MODERNBERT, documents, "query")).max() <= 1e-6


def test_bad_input_is_an_error_that_changes_nothing(client, tmp_path):
    documents, out = corpus(), str(tmp_path / "out")
    embed_corpus.embed_corpus(documents, MODERNBERT, out, client, partitions=3,
                              prompt_name="query")
    before = snapshot(out)

    def refused(*args, **options):
        with pytest.raises(embed_corpus.JobError) as e:
            embed_corpus.plan_job(*args, **options)
        assert snapshot(out) == before
        return str(e.value)

    missing = str(tmp_path / "no-such-model")
    assert refused(documents, missing, out, 3, prompt_name="query").startswith(
        f"model: {missing}: no such folder, and not a Hub id")
    assert "documents: the corpus is empty" in refused([], MODERNBERT, out, 3)
    assert "partitions: 31, for 30 documents" in refused(documents, MODERNBERT, out, 31)
    assert "options: " in refused(documents, MODERNBERT, out, 3, prompt_name="nope")
    message = refused(documents, MODERNBERT, out, 3, prompt_name="document", normalize=True)
    assert (f"output: {out} holds another job's vectors (options.normalize: False there, "
            f"True here; options.prompt_name: 'query' there, 'document' here)") in message
    message = refused(documents, ST_DENSE, out, 2, prompt_name="query")
    assert f"model: '{os.path.abspath(MODERNBERT)}' there, '{ST_DENSE}' here" in message
    assert "model_sha256: " in message and "partitions: 3 there, 2 here" in message

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert "holds files and no job.json" in refused(documents, MODERNBERT, str(other), 3)
    assert (other / "notes.txt").read_text() == "mine"

    with pytest.raises(embed_corpus.JobError, match="input: .*: no such file or folder"):
        embed_corpus.read_documents(str(tmp_path / "no-such-corpus"))
    (tmp_path / "blank.txt").write_text("\n  \n\n")
    with pytest.raises(embed_corpus.JobError, match="blank.txt holds no documents"):
        embed_corpus.read_documents(str(tmp_path / "blank.txt"))
    (tmp_path / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    with pytest.raises(embed_corpus.JobError, match="latin1.txt: not UTF-8 text"):
        embed_corpus.read_documents(str(tmp_path / "latin1.txt"))


def run_script(*args):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, "embed_corpus.py"), *args],
                          capture_output=True, text=True, timeout=240)


def test_command_line_job(tmp_path):
    corpus_dir, out = tmp_path / "corpus", str(tmp_path / "out")
    corpus_dir.mkdir()
    documents = corpus(40)
    for f in range(2):  # blank lines are skipped
        (corpus_dir / f"part{f}.txt").write_text("\n\n".join(documents[20 * f:20 * f + 20]))
    done = run_script("--model", MODERNBERT, "--input", str(corpus_dir), "--output", out,
                      "--workers", "2", "--partitions", "4", "--prompt-name", "query")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"40 documents -> 4 partitions of [n, 8] vectors in {out} "
                           f"(1 cut to the model's max_seq_length)\n")
    index = json.load(open(os.path.join(out, "index.json")))
    assert [(s["first"], s["count"]) for s in index["sources"]] == [(0, 20), (20, 20)]
    assert [r["model_loads"] for r in records(out)] == [1, 1, 1, 1]
    vectors = embed_corpus.load_vectors(out)
    assert np.abs(vectors - single_process(MODERNBERT, documents, "query")).max() <= 1e-6

    before = snapshot(out)  # bad input: exit status 2, the message, nothing written
    for args, message in [
        (["--model", str(tmp_path / "none"), "--input", str(corpus_dir)], "error: model: "),
        (["--model", MODERNBERT, "--input", str(tmp_path / "none")], "error: input: "),
        (["--model", MODERNBERT, "--input", str(corpus_dir), "--prompt-name", "document"],
         "options.prompt_name: 'query' there, 'document' here"),
    ]:
        done = run_script(*args, "--output", out)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert snapshot(out) == before
