#!/usr/bin/python3
"""The ONNX Runtime peer that bench/sparse_bench.py --ort and
bench/colbert_encode.py --ort drive: the model exported once beside its folder
(retrieval_export.py), and a retrieval_ort_worker.js process that runs it."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def exported(kind, folder):
    """folder's model as <folder>.onnx beside it (not in it: the folder stays
    what tfenc loads), exported with torch on first use."""
    path = os.path.normpath(folder) + ".onnx"
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "retrieval_export.py"), kind, folder,
                        path], check=True)
    return path


class OrtWorker:
    """One node process with one session: load, then input/run/rss commands."""

    def __init__(self, model, threads):
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "retrieval_ort_worker.js")],
                                     cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self.loaded = self.call("load", model=model, threads=threads)

    def call(self, cmd, **kw):
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply.pop("ok"):
            raise RuntimeError(reply["error"])
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
