#!/usr/bin/python3
"""libtfenc against ONNX Runtime, side by side in one run: the same
torch.nn.TransformerEncoder models and one rotary (RoPE) layer (exported by
export.py, to ONNX for ONNX Runtime and to safetensors for libtfenc), the
same inputs, timed in alternation, outputs compared on the real tokens.

Each side runs in its own long-lived worker process, so that its peak
resident memory is its own: ort_worker.js (onnxruntime-node, CPU execution
provider, graph optimisation "all", --threads intra-op threads) and
tfenc_worker.py (the Python binding, n_threads = --threads). With
OPENBLAS_CORETYPE set in the environment a second libtfenc worker runs with
it, beside the first, which runs with the variable unset (the kernels
OpenBLAS detects). Per workload a
fresh set of workers loads the model, takes the input, resets its peak RSS
(VmHWM, via /proc/self/clear_refs) and is warmed up; then the coordinator
runs one call on each worker in turn, rotating who goes first, for a number
of rounds, and reports each side's median.

    /usr/bin/python3 bench/compare_ort/compare_ort.py [--quick] [--threads 2]
        [--csv FILE] [--json FILE] [--plot FILE] [--only REGEX]

Needs: python3-torch, python3-onnx (export), python3-matplotlib (plot),
node, and `ONNXRUNTIME_NODE_INSTALL=skip npm ci` in bench/compare_ort.
"""
import argparse
import json
import math
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from export import DEFAULT_DIR as MODEL_DIR, MODELS  # noqa: E402

VARLEN_SEED, VARLEN_B, VARLEN_T = 2024, 32, 128
REPLY_TIMEOUT_S = 300  # far beyond any one call or model load here


def varlen_lengths():
    """32 lengths uniform in [8, 128], drawn as tfenc-bench --varlen draws
    them (the same LCG and seed), so the batch is that benchmark's."""
    r, out = VARLEN_SEED, []
    for _ in range(VARLEN_B):
        r = (r * 1103515245 + 12345) & 0xFFFFFFFF
        out.append(8 + (r >> 8) % (VARLEN_T - 8 + 1))
    return out


def workloads(quick):
    """(name, model, B, T, lengths [B]) per workload, in run order."""
    layer_ts = (16, 128, 512) if quick else (16, 64, 128, 256, 512, 1024, 2048, 4096)
    rows = [(f"BERT-base layer, 1x{T}", "bert_layer", 1, T, [T]) for T in layer_ts]
    rows += [("6L 384/12/1536, 1x16", "minilm6", 1, 16, [16]),
             ("6L 384/12/1536, 1x128", "minilm6", 1, 128, [128])]
    if not quick:
        rows.append(("6L 384/12/1536, 32x128 full", "minilm6", 32, 128, [128] * 32))
    rows.append(("6L 384/12/1536, 32 seqs 8..128", "minilm6", VARLEN_B, VARLEN_T,
                 varlen_lengths()))
    if not quick:
        rows += [("12L BERT-base, 1x16", "bert12", 1, 16, [16]),
                 ("12L BERT-base, 1x128", "bert12", 1, 128, [128])]
        rows += [(f"RoPE BERT-base layer, 1x{T}", "rope_layer", 1, T, [T]) for T in (2048, 8192)]
    return rows


# ---- workers --------------------------------------------------------------------

class Worker:
    """A worker process and its line protocol: each request
    is one JSON object {"cmd": ..., ...} on its stdin, each reply one JSON
    object {"ok": true, ...} or {"ok": false, "error": ...} on its stdout.
    Commands: load {model, threads} -> {runtime, ...}; input {x: file of
    float32 [B, T, D], shape, lengths [B]}; run -> {ms}, one timed call;
    dump {path}: the latest output as float32 [B, T, D]; reset_peak ->
    {reset}: VmHWM := VmRSS, where the kernel lets it; rss -> {rss_kb,
    peak_kb}."""

    def __init__(self, side, argv, env, cwd):
        self.side = side
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, cwd=cwd, text=True, bufsize=1)

    def send(self, cmd, **fields):
        self.proc.stdin.write(json.dumps({"cmd": cmd, **fields}) + "\n")

    def reply(self):
        # One request is out at a time, so its reply is never already buffered.
        if not select.select([self.proc.stdout], [], [], REPLY_TIMEOUT_S)[0]:
            raise RuntimeError(f"{self.side} worker: no reply in {REPLY_TIMEOUT_S} s (hung?)")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.side} worker exited (status {self.proc.wait()})")
        msg = json.loads(line)
        if not msg.pop("ok"):
            raise RuntimeError(f"{self.side} worker: {msg['error']}")
        return msg

    def call(self, cmd, **fields):
        self.send(cmd, **fields)
        return self.reply()

    def close(self):
        """Ends the worker: EOF on its stdin, or a kill when it is hung."""
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def side_specs(args):
    """{side: (argv, env, model suffix)}: ONNX Runtime, libtfenc with
    OPENBLAS_CORETYPE unset and, when the environment sets it, libtfenc with
    the environment's value."""
    env = dict(os.environ)
    if args.library:
        env["TFENC_LIBRARY"] = args.library
    if env.get("TFENC_LIBRARY"):  # the workers run in another directory
        env["TFENC_LIBRARY"] = os.path.abspath(env["TFENC_LIBRARY"])
    detected = {k: v for k, v in env.items() if k != "OPENBLAS_CORETYPE"}
    tfenc = [sys.executable, os.path.join(HERE, "tfenc_worker.py")]
    specs = {"ort": ([args.node, os.path.join(HERE, "ort_worker.js")], env, ".onnx"),
             "tfenc": (tfenc, detected, ".safetensors")}
    if env.get("OPENBLAS_CORETYPE") and not args.no_env_coretype:
        specs["tfenc_env"] = (tfenc, env, ".safetensors")
    return specs


def start_workers(specs, model, threads):
    """One worker per side, each with the model loaded (concurrently)."""
    workers = {side: Worker(side, argv, env, HERE) for side, (argv, env, _) in specs.items()}
    for side, w in workers.items():
        w.send("load", model=os.path.join(MODEL_DIR, model + specs[side][2]), threads=threads)
    return workers, {side: w.reply() for side, w in workers.items()}


# ---- one workload --------------------------------------------------------------

def alternate(workers, rounds, gap):
    """{side: [ms, ...]}: `rounds` calls on each worker, one worker at a time,
    the first of each round rotating; `gap` seconds between calls let the
    previous side's threads stop spinning."""
    sides = list(workers)
    times = {side: [] for side in sides}
    for r in range(rounds):
        for side in sides[r % len(sides):] + sides[:r % len(sides)]:
            time.sleep(gap)
            times[side].append(workers[side].call("run")["ms"])
    return times


def rounds_for(warm_ms, p):
    """Enough rounds for p.min_time seconds of timed calls, within
    [p.min_rounds, p.max_rounds], from one warm-up round's times."""
    per_round = sum(warm_ms.values()) / 1e3
    return max(p.min_rounds, min(p.max_rounds, math.ceil(p.min_time / max(per_round, 1e-6))))


def real_token_diff(a, b, lengths):
    """max |a - b| over the real tokens of [B, T, D] outputs."""
    return max(float(np.abs(a[i, :n] - b[i, :n]).max()) for i, n in enumerate(lengths))


def feed(workers, x, lengths, tmp):
    """Gives every worker the input x [B, T, D] (real tokens per sequence:
    lengths [B]) and resets its peak RSS; False where a reset was refused."""
    path = os.path.join(tmp, "x.bin")
    x.tofile(path)
    reset = True
    for w in workers.values():
        w.call("input", x=path, shape=list(x.shape), lengths=lengths)
        reset &= w.call("reset_peak")["reset"]
    return reset


def time_sides(workers, p):
    """{side: [ms, ...]} of the timed rounds, after p.warmup warm-up rounds."""
    for _ in range(p.warmup - 1):
        alternate(workers, 1, p.gap)
    warm = {side: ms[0] for side, ms in alternate(workers, 1, p.gap).items()}
    return alternate(workers, rounds_for(warm, p), p.gap)


def outputs_of(workers, shape, tmp):
    """{side: its latest output [B, T, D]}."""
    outputs = {}
    for side, w in workers.items():
        path = os.path.join(tmp, side + ".bin")
        w.call("dump", path=path)
        outputs[side] = np.fromfile(path, dtype=np.float32).reshape(shape)
    return outputs


def run_workload(workers, wl, p, tmp):
    """Times one workload on freshly loaded workers; returns its result row."""
    name, model, B, T, lengths = wl
    x = np.random.default_rng(B * 100003 + T).standard_normal((B, T, MODELS[model][0]),
                                                               dtype=np.float32)
    reset = feed(workers, x, lengths, tmp)
    times = time_sides(workers, p)
    outputs = outputs_of(workers, x.shape, tmp)
    row = {"workload": name, "model": model, "batch": B, "seq_len": T,
           "real_tokens": int(sum(lengths)), "rounds": len(times["ort"]),
           "peak_rss_includes_loading": not reset}
    for side, w in workers.items():
        row[f"{side}_ms"] = statistics.median(times[side])
        row[f"{side}_min_ms"] = min(times[side])
        row[f"{side}_peak_rss_mb"] = w.call("rss")["peak_kb"] / 1024
        if side != "ort":
            row[f"ort_over_{side}"] = row["ort_ms"] / row[f"{side}_ms"]
            row[f"{side}_max_abs_diff"] = real_token_diff(outputs["ort"], outputs[side], lengths)
    row["max_abs_diff"] = max(row[f"{side}_max_abs_diff"] for side in workers if side != "ort")
    return row


# ---- the run ---------------------------------------------------------------------

def ensure_models(names):
    missing = [m for m in names for ext in (".onnx", ".safetensors")
               if not os.path.exists(os.path.join(MODEL_DIR, m + ext))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "export.py"), "--out", MODEL_DIR,
                        "--models", ",".join(sorted(set(missing)))], check=True)


def coretype_setting(side):
    """How a libtfenc side's worker has OPENBLAS_CORETYPE."""
    return f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')}" if side == "tfenc_env" \
        else "OPENBLAS_CORETYPE unset"


def describe(first, specs, args):
    """The run's header lines: machine, runtimes, threads, BLAS kernels."""
    with open("/proc/cpuinfo") as f:
        cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    env_ct = os.environ.get("OPENBLAS_CORETYPE")
    lines = [f"machine: {cpu}, {os.cpu_count()} online cores; OPENBLAS_CORETYPE in the "
             f"environment: {env_ct if env_ct else 'unset'}",
             f"ONNX Runtime: {first['ort']['runtime']}, CPU EP, graph optimisation all, "
             f"{args.threads} intra-op threads"]
    for side in specs:
        if side == "ort":
            continue
        info = first[side]
        lines.append(f"{side}: {info['runtime']}, n_threads {args.threads}; "
                     f"{coretype_setting(side)}: "
                     f"{info['blas']}, kernel {info['corename']}, its thread setting "
                     f"{info.get('blas_threads')} ({info.get('blas_config')})")
    lines.append("columns: '<kernel> ms' is libtfenc with that OpenBLAS kernel; times are "
                 "medians of alternating calls after warm-up; MB is each worker's peak RSS "
                 "(VmHWM) over warm-up and timed calls, the model loaded")
    return lines


def column_specs(sides, kernels):
    """(header, row key, width, format) of the printed table: per side its
    median ms (libtfenc's named by the OpenBLAS kernel that ran) and ratio,
    then each side's peak RSS, then the largest difference from ONNX
    Runtime's output."""
    cols = [("workload", "workload", 32, "s"), ("ORT ms", "ort_ms", 9, ".2f")]
    for side in sides[1:]:
        cols += [(f"{kernels[side]} ms", f"{side}_ms", 6 + len(kernels[side]), ".2f"),
                 ("ORT/tfenc", f"ort_over_{side}", 10, ".2f")]
    cols += [("ORT MB", "ort_peak_rss_mb", 8, ".0f")]
    cols += [(f"{kernels[side]} MB", f"{side}_peak_rss_mb", 4 + len(kernels[side]), ".0f")
             for side in sides[1:]]
    return cols + [("max|diff|", "max_abs_diff", 10, ".1e")]


def format_table(rows, cols):
    """The header line, then one line per row."""
    header = " ".join(f"{h:<{w}}" if fmt == "s" else f"{h:>{w}}" for h, _, w, fmt in cols)
    return [header] + [" ".join(f"{r[k]:<{w}{fmt}}" if fmt == "s" else f"{r[k]:>{w}{fmt}}"
                                for _, k, w, fmt in cols) for r in rows]


def write_csv(path, rows):
    keys = list(rows[0])
    with open(path, "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k])
                             for k in keys) + "\n")


def plot(path, rows, sides, kernels):
    try:
        import matplotlib
    except ImportError:
        print("no plot: matplotlib is not installed (apt-get install python3-matplotlib)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = {"ort": "ONNX Runtime", **{s: f"libtfenc, OpenBLAS {kernels[s]} "
                                            f"({coretype_setting(s)})" for s in sides[1:]}}
    layer = [r for r in rows if r["model"] == "bert_layer"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5.6))
    for side, marker in zip(sides, "o^s"):
        a.loglog([r["seq_len"] for r in layer], [r[f"{side}_ms"] for r in layer],
                 marker + "-", label=labels[side])
    a.set(xlabel="sequence length T", ylabel="ms per call (median)",
          title="one BERT-base layer, batch 1")
    width = 0.8 / (len(sides) - 1)
    for i, side in enumerate(sides[1:]):
        b.barh([j + i * width for j in range(len(rows))], [r[f"ort_over_{side}"] for r in rows],
               height=width, label=labels[side])
    b.set_yticks([j + width * (len(sides) - 2) / 2 for j in range(len(rows))],
                 [r["workload"] for r in rows], fontsize=8)
    b.invert_yaxis()
    b.axvline(1.0, color="k", lw=0.8)
    b.set(xlabel="ONNX Runtime ms / libtfenc ms (> 1: libtfenc faster)", title="every workload")
    a.legend(fontsize=8)
    b.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    for ax in (a, b):
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="fewer workloads and rounds (under a minute once exported)")
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of each side: ONNX Runtime's intra-op threads, libtfenc's "
                    "n_threads (%(default)s)")
    ap.add_argument("--only", metavar="REGEX",
                    help="run the workloads whose names match, e.g. 'layer, 1x(16|128)$'")
    ap.add_argument("--library", help="libtfenc.so to load (else TFENC_LIBRARY, else the "
                    "binding's search)")
    ap.add_argument("--node", default="node", help="the Node.js program (%(default)s)")
    ap.add_argument("--no-env-coretype", action="store_true",
                    help="only the OPENBLAS_CORETYPE-unset libtfenc worker")
    ap.add_argument("--gap", type=float, default=0.1,
                    help="idle seconds before each call, longer than OpenBLAS's and ONNX "
                    "Runtime's threads spin after one (%(default)s)")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up rounds (1 with --quick)")
    ap.add_argument("--min-time", type=float,
                    help="seconds of timed rounds per workload (4; 0.4 with --quick)")
    ap.add_argument("--min-rounds", type=int, help="at least this many rounds (7; 3 with --quick)")
    ap.add_argument("--max-rounds", type=int, default=200, help="at most (%(default)s)")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="largest max|diff| accepted; beyond it the exit status is 1")
    ap.add_argument("--csv", help="default: bench/results/compare_ort.csv (none with --quick)")
    ap.add_argument("--json", help="default: bench/results/compare_ort.json (none with --quick)")
    ap.add_argument("--plot", help="default: docs/compare_ort.png (none with --quick)")
    p = ap.parse_args()
    full = not p.quick
    p.min_time = p.min_time if p.min_time is not None else (4.0 if full else 0.4)
    p.min_rounds = p.min_rounds if p.min_rounds is not None else (7 if full else 3)
    p.warmup = max(1, p.warmup if full else 1)
    for key, default in (("csv", "bench/results/compare_ort.csv"),
                         ("json", "bench/results/compare_ort.json"),
                         ("plot", "docs/compare_ort.png")):
        if getattr(p, key) is None and full:
            setattr(p, key, os.path.join(ROOT, default))
    return p


def main():
    p = parse_args()
    if not os.path.isdir(os.path.join(HERE, "node_modules", "onnxruntime-node")):
        sys.exit(f"onnxruntime-node is not installed: cd {HERE} && "
                 "ONNXRUNTIME_NODE_INSTALL=skip npm ci")
    todo = workloads(p.quick)
    if p.only:
        todo = [w for w in todo if re.search(p.only, w[0])]
    if not todo:
        sys.exit(f"--only: no workload's name matches {p.only!r}; the names: "
                 + "; ".join(w[0] for w in workloads(p.quick)))
    ensure_models(dict.fromkeys(w[1] for w in todo))
    specs = side_specs(p)
    sides = list(specs)
    rows, first, cols = [], None, None
    with tempfile.TemporaryDirectory(prefix="compare_ort.") as tmp:
        for wl in todo:
            workers, info = start_workers(specs, wl[1], p.threads)
            try:
                if first is None:
                    first = info
                    kernels = {s: info[s]["corename"] or s for s in sides[1:]}
                    print("\n".join(describe(first, specs, p)) + "\n", flush=True)
                    cols = column_specs(sides, kernels)
                    print(format_table([], cols)[0], flush=True)
                rows.append(run_workload(workers, wl, p, tmp))
                print(format_table(rows[-1:], cols)[1], flush=True)
            finally:
                for w in workers.values():
                    w.close()
    worst = max(r["max_abs_diff"] for r in rows)
    verdict = "agree within" if worst <= p.tolerance else "DIFFER, beyond the tolerance, by"
    print(f"\noutputs on the real tokens {verdict} {worst:.1e} (--tolerance {p.tolerance:g})")
    meta = {"header": describe(first, specs, p), "settings": vars(p), "rows": rows}
    if p.csv:
        write_csv(p.csv, rows)
        print(f"wrote {p.csv}")
    if p.json:
        with open(p.json, "w") as f:
            json.dump(meta, f, indent=1)
        print(f"wrote {p.json}")
    if p.plot:
        plot(p.plot, rows, sides, kernels)
    sys.exit(0 if worst <= p.tolerance else 1)


if __name__ == "__main__":
    main()
