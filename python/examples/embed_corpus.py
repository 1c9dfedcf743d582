#!/usr/bin/python3
"""Embeds a corpus on a Dask cluster with a model folder's pipeline: one vector per document (a
non-empty line of a text file, or of every *.txt file of a folder), as the folder says: cut to
its max_seq_length, its prompts, its pooling, Dense and Normalize modules.

    PYTHONPATH=python /usr/bin/python3 python/examples/embed_corpus.py \\
        --model MODEL_FOLDER --input corpus/ --output vectors/ \\
        [--workers 2 | --scheduler tcp://host:8786] [--partitions N] \\
        [--prompt-name NAME] [--normalize] [--batch-size 32]

The output folder (shared by every worker):
    job.json         the job: model (path, sha256 of its files), options, partitions
    part-NNNNN.npy   [n, dim] float32: partition NNNNN's n documents' vectors
    part-NNNNN.json  its record, written after the .npy: shape, the .npy's sha256, the sha256
                     of the job and of the partition's documents, the run and process
    index.json       written last: documents, dim, partitions in order, sources
Each file is written under a temporary name in the folder, then renamed into place. Run again
with the same output, the job resumes: a partition whose record matches its .npy, the job and
its documents is kept, every other one computed. A worker that dies has its tasks run again by
Dask (up to distributed.scheduler.allowed-failures times); a task finds its partition finished
or writes it whole.
"""
import argparse
import functools
import hashlib
import io
import json
import os
import re
import sys
import uuid

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.join(HERE, "..")
sys.path.insert(0, PACKAGE_DIR)
import tfenc  # noqa: E402

JOB, INDEX = "job.json", "index.json"
TEMPORARY = re.compile(r"^\.(part-\d{5,}\.(npy|json)|job\.json|index\.json)\.[0-9a-f]{32}\.tmp$")


class JobError(ValueError):
    """The job's input is wrong (the message names what, and both values); nothing written."""


# ---- files ----------------------------------------------------------------------------------

def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _json_bytes(value):
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False).encode()


def _digest(value):
    """sha256 of value (JSON: the job, a partition's documents)."""
    return _sha256(_json_bytes(value))


def _folder_digest(folder):
    """sha256 over a folder's files (hidden ones left out): relative names, sizes, contents."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".")):
            path = os.path.join(root, name)
            h.update(f"{os.path.relpath(path, folder)}\0{os.path.getsize(path)}\0".encode())
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()


def _write_atomic(path, data):
    """path holds data, or (interrupted) what it held before: data goes to a temporary file
    in the same folder, synced, then renamed over path."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _remove_temporaries(output):
    """The temporary files of writers that died (a killed worker) in output."""
    for name in os.listdir(output):
        if TEMPORARY.match(name):
            os.remove(os.path.join(output, name))


def _part(k, ext):
    return f"part-{k:05d}{ext}"


def _finished(output, job, k, texts):
    """Partition k's record when its files are whole and were made by this job from these
    texts (else None: it is to be computed)."""
    try:
        with open(os.path.join(output, _part(k, ".json")), "rb") as f:
            record = json.load(f)
        with open(os.path.join(output, record["file"]), "rb") as f:
            npy = f.read()
        shape = np.load(io.BytesIO(npy)).shape
    except (OSError, ValueError, KeyError, TypeError):  # missing, half there, not ours
        return None
    whole = (record.get("sha256") == _sha256(npy) and list(shape) == record.get("shape")
             and shape[0] == len(texts))
    ours = (record.get("job_sha256") == _digest(job)
            and record.get("documents_sha256") == _digest(texts))
    return record if whole and ours else None


# ---- on a worker ----------------------------------------------------------------------------

_loads = [0]  # how many times this process loaded a model


def _load(model):
    """The folder pipeline of model, a sentence-transformers or Hugging Face folder."""
    return tfenc.SentenceTransformer(model)


def _encode(pipeline, texts, prompt_name, normalize, batch_size):
    """[len(texts), dim] float32 through the pipeline's encode(); normalize True: unit length,
    False: as the folder's modules."""
    return pipeline.encode(texts, prompt_name=prompt_name, normalize_embeddings=normalize,
                           batch_size=batch_size, show_progress_bar=False)


@functools.lru_cache(maxsize=1)
def _pipeline(model):
    """The pipeline, loaded once per process (per worker)."""
    _loads[0] += 1
    return _load(model)


def embed_partition(output, job, k, texts, run, batch_size=32):
    """On whichever worker runs it: partition k's vectors written to output, the .npy then its
    record; returns the record. Run again (its result lost with a worker), it finds the
    partition finished and returns the record written then."""
    record = _finished(output, job, k, texts)
    if record is not None:
        return record
    pipeline = _pipeline(job["model"])
    vectors = _encode(pipeline, texts, job["options"]["prompt_name"],
                      job["options"]["normalize"], batch_size)  # [len(texts), dim]
    npy = io.BytesIO()
    np.save(npy, vectors)
    record = {"partition": k, "file": _part(k, ".npy"), "shape": list(vectors.shape),
              "sha256": _sha256(npy.getvalue()), "job_sha256": _digest(job),
              "documents_sha256": _digest(texts), "truncated": pipeline.truncated,
              "run": run, "pid": os.getpid(), "model_loads": _loads[0]}
    _write_atomic(os.path.join(output, record["file"]), npy.getvalue())
    _write_atomic(os.path.join(output, _part(k, ".json")), _json_bytes(record))
    return record


# ---- the job --------------------------------------------------------------------------------

def read_documents(path):
    """Non-empty lines of a file, or of a folder's *.txt files by name; and where each file's
    lines start."""
    if not os.path.exists(path):
        raise JobError(f"input: {path}: no such file or folder")
    files = [path] if os.path.isfile(path) else sorted(
        os.path.join(path, f) for f in os.listdir(path) if f.endswith(".txt"))
    documents, sources = [], []
    for f in files:
        try:
            with open(f, encoding="utf-8") as lines:
                docs = [line.rstrip("\n") for line in lines if line.strip()]
        except UnicodeDecodeError as e:
            raise JobError(f"input: {f}: not UTF-8 text ({e})") from None
        sources.append({"file": f, "first": len(documents), "count": len(docs)})
        documents.extend(docs)
    if not documents:
        raise JobError(f"input: {path} holds no documents (non-empty lines of it, or of its "
                       f"*.txt files)")
    return documents, sources


def _differences(there, here, prefix=""):
    """'name: X there, Y here' for each field in which two jobs differ."""
    out = []
    for key in sorted(set(there) | set(here)):
        a, b = there.get(key), here.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: {a!r} there, {b!r} here")
    return out


def _check_output(output, job):
    """output is new, empty, or this job's (to resume)."""
    if os.path.exists(output) and not os.path.isdir(output):
        raise JobError(f"output: {output} is a file, not a folder")
    if not os.path.isdir(output) or all(TEMPORARY.match(n) for n in os.listdir(output)):
        return  # new, or empty but for a writer's leftovers (killed writing job.json)
    try:
        with open(os.path.join(output, JOB), "rb") as f:
            there = json.load(f)
    except FileNotFoundError:
        raise JobError(f"output: {output} holds files and no {JOB}: not a corpus job's "
                       f"folder; give a new or empty one") from None
    except ValueError as e:
        raise JobError(f"output: {os.path.join(output, JOB)}: not JSON ({e})") from None
    differ = _differences(there, job) if isinstance(there, dict) else [f"{JOB}: {there!r}"]
    if differ:
        raise JobError(f"output: {output} holds another job's vectors ({'; '.join(differ)}); "
                       f"resume with the same model and options, or give a new folder")


def plan_job(documents, model, output, partitions, prompt_name=None, normalize=False,
             sources=None):
    """The job as run_job takes it; every argument checked (the model loaded and the options
    tried on the first document here), nothing written."""
    if not documents:
        raise JobError("documents: the corpus is empty")
    if not 1 <= partitions <= len(documents):
        raise JobError(f"partitions: {partitions}, for {len(documents)} documents: expected 1 "
                       f"to {len(documents)}")
    try:
        pipeline = _load(model)
    except (tfenc.TfencError, OSError, ValueError) as e:
        raise JobError(f"model: {e}") from None
    try:
        dim = _encode(pipeline, documents[:1], prompt_name, normalize, 1).shape[1]
    except (tfenc.TfencError, ValueError, TypeError) as e:
        raise JobError(f"options: {e}") from None
    folder = os.path.isdir(model)  # else a name the loader resolves
    job = {"model": os.path.abspath(model) if folder else model,
           "model_sha256": _folder_digest(model) if folder else None,
           "options": {"prompt_name": prompt_name, "normalize": bool(normalize)},
           "partitions": partitions}
    output = os.path.abspath(output)
    _check_output(output, job)
    bounds = [len(documents) * k // partitions for k in range(partitions + 1)]
    return {"job": job, "output": output, "dim": dim, "sources": sources,
            "partitions": [documents[a:b] for a, b in zip(bounds, bounds[1:])]}


def run_job(plan, client, batch_size=32):
    """Embeds the plan's partitions not finished in its output on the client's workers, then
    writes index.json; returns the index."""
    job, output = plan["job"], plan["output"]
    os.makedirs(output, exist_ok=True)
    if not os.path.exists(os.path.join(output, JOB)):
        _write_atomic(os.path.join(output, JOB), _json_bytes(job))
    if os.path.exists(os.path.join(output, INDEX)):  # the index stands for a whole run
        os.remove(os.path.join(output, INDEX))
    run = uuid.uuid4().hex
    records, futures = {}, []
    for k, texts in enumerate(plan["partitions"]):
        record = _finished(output, job, k, texts)
        if record is not None:
            records[k] = record
        else:
            futures.append(client.submit(embed_partition, output, job, k, texts, run,
                                         batch_size, key=f"embed-partition-{k:05d}-{run}"))
    for record in client.gather(futures):
        records[record["partition"]] = record
    _remove_temporaries(output)
    parts, first = [], 0
    for k in range(len(plan["partitions"])):
        r = records[k]
        parts.append({"partition": k, "file": r["file"], "first": first, "count": r["shape"][0]})
        first += r["shape"][0]
    index = {"job": job, "documents": first, "dim": plan["dim"], "run": run,
             "truncated": sum(r["truncated"] for r in records.values()),
             "partitions": parts, "sources": plan["sources"]}
    _write_atomic(os.path.join(output, INDEX), _json_bytes(index))
    return index


def embed_corpus(documents, model, output, client, partitions, batch_size=32, **options):
    """plan_job then run_job: the index."""
    return run_job(plan_job(documents, model, output, partitions, **options), client,
                   batch_size)


def load_vectors(output):
    """[documents, dim] float32: every vector of a finished output folder, in document order."""
    with open(os.path.join(output, INDEX)) as f:
        index = json.load(f)
    return np.concatenate([np.load(os.path.join(output, p["file"]))
                           for p in index["partitions"]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="a sentence-transformers or Hugging Face "
                    "model folder")
    ap.add_argument("--input", required=True, help="a text file or a folder of *.txt files")
    ap.add_argument("--output", required=True, help="a new or empty folder, or one to resume")
    ap.add_argument("--workers", type=int, default=2, help="a LocalCluster of this many")
    ap.add_argument("--scheduler", help="an existing cluster's address instead")
    ap.add_argument("--partitions", type=int, default=0, help="default: 1 per 1000 documents")
    ap.add_argument("--prompt-name", help="one of the folder's prompts (default: its default)")
    ap.add_argument("--normalize", action="store_true", help="unit-length vectors (without: "
                    "as the folder's modules)")
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()

    try:
        documents, sources = read_documents(args.input)
        plan = plan_job(documents, args.model, args.output,
                        args.partitions or max(1, len(documents) // 1000), args.prompt_name,
                        args.normalize, sources)
    except JobError as e:
        ap.error(str(e))
    from distributed import Client, LocalCluster
    if args.scheduler:  # its workers need tfenc installed (docs/python.md, "Installing")
        client = Client(args.scheduler)
        client.upload_file(os.path.abspath(__file__))
    else:  # local workers import this module and tfenc from here
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [HERE, PACKAGE_DIR] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     dashboard_address=None))
    with client:
        index = run_job(plan, client, args.batch_size)
    print(f"{index['documents']} documents -> {len(index['partitions'])} partitions of "
          f"[n, {index['dim']}] vectors in {args.output} ({index['truncated']} cut to the "
          f"model's max_seq_length)")


if __name__ == "__main__":
    # Run as the module "embed_corpus", as the workers import it: functions of
    # __main__ would be pickled by value, each task with its own model cache.
    sys.path.insert(0, HERE)
    import embed_corpus as job
    job.main()
