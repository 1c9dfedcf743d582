#!/usr/bin/python3
"""libtfenc's side of bench/compare_ort: a long-lived worker that
compare_ort.py drives over stdin and stdout, one JSON object a line each way
(the protocol is compare_ort.py's Worker). It runs the model through the
Python binding (python/tfenc) exactly as a user does: Encoder.from_file, then
enc(input_embeds=..., key_padding_mask=..., n_threads=...) per call (no workspace: the
binding has none).

    /usr/bin/python3 tfenc_worker.py    (started by compare_ort.py, not by hand)
"""
import ctypes
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tfenc  # noqa: E402


def proc_status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def loaded_openblas():
    """The OpenBLAS this process loaded (through libtfenc), as ctypes.CDLL,
    found in /proc/self/maps; None when the BLAS is another one."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    for path in sorted(p for p in paths if "blas" in os.path.basename(p)):
        blas = ctypes.CDLL(path)
        if hasattr(blas, "openblas_get_corename"):
            return path, blas
    return None, None


def blas_report():
    path, blas = loaded_openblas()
    if blas is None:
        return {"blas": "not OpenBLAS", "corename": None}
    for fn in ("openblas_get_corename", "openblas_get_config"):
        getattr(blas, fn).restype = ctypes.c_char_p
    return {"blas": path, "corename": blas.openblas_get_corename().decode(),
            "blas_config": blas.openblas_get_config().decode(),
            "blas_threads": blas.openblas_get_num_threads()}


class Worker:
    def __init__(self):
        self.enc = self.x = self.padding = self.output = self.threads = None

    def load(self, msg):
        self.enc = tfenc.Encoder.from_file(msg["model"])
        self.threads = msg["threads"]
        return {"runtime": f"libtfenc {tfenc.__version__} (Python binding)", **blas_report()}

    def input(self, msg):
        B, T, D = msg["shape"]
        self.x = np.fromfile(msg["x"], dtype=np.float32).reshape(B, T, D)
        self.padding = np.arange(T)[None, :] >= np.array(msg["lengths"])[:, None]  # [B, T]
        return {}

    def run(self, _msg):
        t0 = time.perf_counter()
        out = self.enc(input_embeds=self.x, key_padding_mask=self.padding, n_threads=self.threads)
        ms = (time.perf_counter() - t0) * 1e3
        self.output = out.last_hidden_state
        return {"ms": ms}

    def dump(self, msg):
        self.output.tofile(msg["path"])
        return {}

    def reset_peak(self, _msg):
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # VmHWM := VmRSS
        except OSError:
            return {"reset": False}
        return {"reset": True}

    def rss(self, _msg):
        return {"rss_kb": proc_status_kb("VmRSS"), "peak_kb": proc_status_kb("VmHWM")}


def main():
    worker = Worker()
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            reply = {"ok": True, **getattr(worker, msg["cmd"])(msg)}
        except Exception as e:  # the coordinator reports it and stops
            reply = {"ok": False, "error": f"{msg['cmd']}: {type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
