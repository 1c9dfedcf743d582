#!/usr/bin/python3
"""Load benchmark of tfenc serve: requests/s and p50/p99 latency at 1, 8
and 64 concurrent clients (keep-alive connections, one input a request) for
three workloads: every input 16 tokens, every input 128, and mixed (each
input's length drawn from 8..128, seeded: the same texts, in the same order
per client, for every server), against four servers of one model
(model.py's MiniLM-L6-shaped BERT with mean pooling and normalisation):

  batching      tfenc serve, dynamic batching (--max-batch-tokens, 16384)
  no-batching   tfenc serve --max-batch-tokens 16: every input runs alone
  ort           onnxruntime-node behind Node's http, one request at a time
                (serve_load/ort_server.js), the same model exported to ONNX
  ort-batching  onnxruntime-node with a batching queue of the same token
                budget, each batch padded to its longest input
                (serve_load/ort_batching_server.js)

Each server's forward runs on each of --threads (a list) threads, and the
tfenc servers with each of --kernels: "detected" unsets OPENBLAS_CORETYPE
(OpenBLAS picks the CPU's kernels), another value sets it; the kernels that
ran are `tfenc info`'s, printed and kept in the JSON. ONNX Runtime has its
own kernels: its servers run once per thread count, beside both tfenc
settings. Every server is started first; within each round the
configurations run in turn (for each workload and client count, every
server of every setting one after another), so that a change in the
machine's load shows in all alike. A ratio is taken within each round and
the figures are medians over the rounds. The clients are this script's
processes (several, each with threads) on the same machine; each run counts
the requests that end in its window (--seconds, after a warm-up second; both
longer where many clients send long inputs); the rate by the interactive
response time law is kept beside the count in the log and the JSON
(run_load says what each misses). Before measuring, every server's
vectors of 16 mixed-length texts, sent at once (so that the batching
servers batch them), are compared with the vectors of the first tfenc
batching server for each text sent alone (max |difference|).

    /usr/bin/python3 bench/serve_load.py [--tfenc build/tools/tfenc]
        [--rounds 3] [--seconds 3] [--threads 1,2] [--kernels detected,Haswell]
        [--workloads 16,128,mixed] [--clients 1,8,64] [--json OUT.json] [--svg OUT.svg]
    /usr/bin/python3 bench/serve_load.py --from-json OUT.json [--svg OUT.svg]
"""
import argparse
import concurrent.futures
import http.client
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "serve_load"))
import model  # noqa: E402

SERVERS = ("batching", "no-batching", "ort", "ort-batching")
TFENC_SERVERS = SERVERS[:2]
PEER = "ort-batching"  # the server the targets compare with
MIXED = (8, 128)  # the mixed workload's shortest and longest input, in tokens
TEXTS = 256  # texts of each workload
WARMUP = 1.0  # seconds of each run not counted
ROUND_FIELDS = ("req_s", "p50_ms", "p99_ms", "req_s_by_latency")  # run_load's, in the JSON


def workload_texts(workload):
    """TEXTS texts of the workload: "mixed", or a number of tokens."""
    if workload == "mixed":
        rng = random.Random(MIXED[1])
        return model.texts_of_lengths([rng.randint(*MIXED) for _ in range(TEXTS)], seed=MIXED[0])
    return model.texts(int(workload), TEXTS, seed=int(workload))


def tfenc_env(kernels):
    env = dict(os.environ)
    if kernels == "detected":
        env.pop("OPENBLAS_CORETYPE", None)
    else:
        env["OPENBLAS_CORETYPE"] = kernels
    return env


def kernels_ran(args, kernels):
    """`tfenc info`'s BLAS line under the setting, e.g. "OpenBLAS, kernels Haswell, ..."."""
    out = subprocess.run([args.tfenc, "info"], env=tfenc_env(kernels), check=True,
                         capture_output=True, text=True).stdout
    return next(l for l in out.splitlines() if l.startswith("BLAS:"))[len("BLAS: "):]


def start_server(server, threads, kernels, args, tmp):
    port_file = os.path.join(tmp, f"{server}-{threads}-{kernels}.port")
    if server.startswith("ort"):
        env = dict(os.environ, NODE_PATH=args.node_modules)
        script = "ort_batching_server.js" if server == "ort-batching" else "ort_server.js"
        cmd = ["node", os.path.join(HERE, "serve_load", script), args.model, port_file,
               str(threads)]
        if server == "ort-batching":
            cmd.append(str(args.max_batch_tokens))
    else:
        env = tfenc_env(kernels)
        budget = 16 if server == "no-batching" else args.max_batch_tokens
        cmd = [args.tfenc, "serve", "--model", args.model, "--port", "0", "--port-file",
               port_file, "--threads", str(threads), "--max-batch-tokens", str(budget)]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    for _ in range(12000):
        if os.path.exists(port_file):
            return proc, int(open(port_file).read())
        if proc.poll() is not None:
            raise SystemExit(f"{server}: exited with {proc.returncode}")
        time.sleep(0.01)
    raise SystemExit(f"{server}: no port after 120 s")


def embed(port, text, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", "/embed", body=json.dumps({"inputs": text}),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        raise RuntimeError(f"{r.status}: {body[:200]}")
    return json.loads(body)[0]


def check_vectors(servers, texts):
    """Max |difference| of each server's vectors of texts, sent at once,
    from the first tfenc batching server's vector of each text alone."""
    ref_port = next(port for key, (_, port) in servers.items() if key[0] == "batching")
    ref = [embed(ref_port, t) for t in texts]
    for key, (_, port) in servers.items():
        with concurrent.futures.ThreadPoolExecutor(len(texts)) as pool:
            got = list(pool.map(lambda t: embed(port, t), texts))
        diff = max(abs(a - b) for g, r in zip(got, ref) for a, b in zip(g, r))
        print(f"{label(key)}: max |difference| from batching's vectors: {diff:.2e}",
              file=sys.stderr)


def client_process(port, texts, threads, ready, begin, warmup, seconds, out):
    """threads clients: each connects and has one answer, then waits at
    `ready` (a barrier of every client of the run); from then on (begin's
    time), each sends until warmup + seconds have passed and puts (latency,
    the client's time since its previous answer) of each request that
    ended after the warm-up."""
    latencies, lock = [], threading.Lock()

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        embed(port, texts[k % len(texts)], conn)
        if ready.wait(timeout=120) == 0:
            begin.value = time.time()
        ready.wait(timeout=120)
        start = begin.value + warmup
        stop = start + seconds
        mine, i, t1 = [], k, time.time()
        while True:
            t0 = time.time()
            if t0 >= stop:
                break
            embed(port, texts[i % len(texts)], conn)
            gap, t1 = t0 - t1, time.time()
            if t1 >= start and t1 < stop:
                mine.append((t1 - t0, gap))
            i += threads
        conn.close()
        with lock:
            latencies.extend(mine)
    ts = [threading.Thread(target=client, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(latencies)


def run_load(port, texts, clients, seconds, warmup):
    """(requests/s, p50 ms, p99 ms, requests/s by latency) of `clients`
    concurrent clients, of the requests that ended in the window. The first
    is their count over the window; the last is clients / (mean latency +
    mean client time between an answer and its next request), the
    interactive response time law of a closed system, which a window of few
    calls' waves of answers does not move by a wave, but which a window
    shorter than the slowest requests overstates (those that do not end in
    it are not in the mean). Every client's connection has had an answer
    before the warm-up begins: onnxruntime-node's servers, whose event loop
    the forward blocks, left the first request of some of 64 new connections
    unanswered until the load ended."""
    procs = min(clients, 4)
    ready, begin = multiprocessing.Barrier(clients), multiprocessing.Value("d", 0.0)
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=client_process,
                                  args=(port, texts[k::procs], clients // procs, ready, begin,
                                        warmup, seconds, q))
          for k in range(procs)]
    for p in ps:
        p.start()
    ended = [x for _ in ps for x in q.get()]  # [(latency, gap)]
    for p in ps:
        p.join()
    if not ended:  # not one request ended in the window: too short for this load
        return 0.0, float("nan"), float("nan"), 0.0
    lat = sorted(x[0] for x in ended)
    cycle = statistics.mean(lat) + statistics.mean(x[1] for x in ended)
    pct = lambda f: 1e3 * lat[min(len(lat) - 1, int(f * len(lat)))]  # noqa: E731
    return len(lat) / seconds, pct(0.50), pct(0.99), clients / cycle


def mean_tokens(texts):
    return statistics.mean(len(t.split()) + 2 for t in texts)


def stretch(texts, clients):
    """How much longer than --seconds and WARMUP a run is where a request
    takes long (many clients of long inputs wait for calls of thousands of
    tokens)."""
    return max(1.0, mean_tokens(texts) * clients / 2048)


def label(key):
    server, threads, kernels = key
    return f"{server} t{threads}" + (f" {kernels}" if server in TFENC_SERVERS else "")


def summarise(runs, args):
    """{(server, threads, kernels, workload, clients): (req/s, p50, p99, vs ort,
    vs PEER, vs PEER by latency)}, medians over the rounds; the ratios are
    the medians of the rounds' ratios. An ORT server's key holds each kernel
    setting (its runs are shared)."""
    out = {}
    for t in args.threads:
        for k in args.kernels:
            for w in args.workloads:
                for c in args.clients:
                    for s in SERVERS:
                        mine = runs[(s, t, k if s in TFENC_SERVERS else "-", w, c)]
                        peer = {p: runs[(p, t, "-", w, c)] for p in ("ort", PEER)}
                        med = [statistics.median(x[i] for x in mine) for i in range(3)]
                        ratio = [statistics.median(m[f] / max(q[f], 1e-9)
                                                   for m, q in zip(mine, peer[p]))
                                 for p, f in (("ort", 0), (PEER, 0), (PEER, 3))]
                        out[(s, t, k, w, c)] = (*med, *ratio)
    return out


def print_tables(results, args, kernel_names):
    print("Every configuration (medians over the rounds; the ratios are the medians of "
          "the rounds' ratios):\n")
    print("| threads | kernels | tokens | clients | server | req/s | p50 ms | p99 ms | p99/p50 "
          "| vs ort | vs ort-batching |")
    print("|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for (s, t, k, w, c), (rps, p50, p99, v_ort, v_peer, _) in results.items():
        kname = kernel_names[k] if s in TFENC_SERVERS else "(ORT's)"
        print(f"| {t} | {kname} | {w} | {c} | {s} | {rps:.1f} | {p50:.2f} | {p99:.2f} | "
              f"{p99 / p50:.2f} | {v_ort:.2f} | {v_peer:.2f} |")
    print("\nBy setting: req/s of each server, p50 / p99 ms of the two batching ones, and "
          "batching's req/s against each ORT server's (against ort-batching's by latency in "
          "brackets):\n")
    print("| threads | kernels | tokens | clients | batching | no-batching | ort | ort-batching "
          "| batching p50 / p99 | ort-batching p50 / p99 | batching / ort | "
          "batching / ort-batching |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in args.threads:
        for k in args.kernels:
            for w in args.workloads:
                for c in args.clients:
                    r = {s: results[(s, t, k, w, c)] for s in SERVERS}
                    rps = " | ".join(f"{r[s][0]:.1f}" for s in SERVERS)
                    lat = " | ".join(f"{r[s][1]:.1f} / {r[s][2]:.1f}"
                                     for s in ("batching", PEER))
                    print(f"| {t} | {kernel_names[k]} | {w} | {c} | {rps} | {lat} | "
                          f"{r['batching'][3]:.2f} | **{r['batching'][4]:.2f}** "
                          f"({r['batching'][5]:.2f}) |")


def write_svg(path, results, args, kernel_names):
    """Requests/s of each server: a panel per workload (rows) and setting
    (columns), a group of bars per client count, batching / ort-batching
    above each group."""
    colours = {"batching": "#1f77b4", "no-batching": "#ff7f0e", "ort": "#2ca02c",
               "ort-batching": "#9467bd"}
    settings = [(t, k) for t in args.threads for k in args.kernels]
    bar, gap, plot_h = 12, 16, 150
    group_w = len(SERVERS) * bar + gap
    panel_w, panel_h = len(args.clients) * group_w + 50, plot_h + 85
    W, top = len(settings) * panel_w + 20, 50
    H = top + len(args.workloads) * panel_h + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             'font-family="DejaVu Sans, sans-serif" font-size="11">',
             f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">tfenc serve under '
             'load: requests/s (MiniLM-L6-shaped, median of rounds)</text>',
             f'<text x="{W / 2}" y="38" text-anchor="middle">above each group: batching / '
             'ort-batching (median of the rounds\' ratios)</text>']
    for row, w in enumerate(args.workloads):
        for col, (t, k) in enumerate(settings):
            x0, y0 = 20 + col * panel_w, top + row * panel_h
            peak = max(results[(s, t, k, w, c)][0] for s in SERVERS for c in args.clients)
            base = y0 + 44 + plot_h
            tokens = f"{MIXED[0]}..{MIXED[1]}" if w == "mixed" else w
            parts.append(f'<text x="{x0}" y="{y0 + 12}">{tokens} tokens, {t} thread'
                         f'{"s" if t > 1 else ""}, {kernel_names[k]}</text>')
            parts.append(f'<text x="{x0}" y="{y0 + 25}" font-size="10" fill="#555">the tallest '
                         f'bar: {peak:.0f} req/s</text>')
            parts.append(f'<line x1="{x0}" y1="{base}" x2="{x0 + panel_w - 30}" y2="{base}" '
                         'stroke="#000"/>')
            for g, c in enumerate(args.clients):
                gx = x0 + g * group_w
                for b, s in enumerate(SERVERS):
                    h = plot_h * results[(s, t, k, w, c)][0] / peak
                    parts.append(f'<rect x="{gx + b * bar:.1f}" y="{base - h:.1f}" '
                                 f'width="{bar - 1}" height="{h:.1f}" fill="{colours[s]}"/>')
                parts.append(f'<text x="{gx + len(SERVERS) * bar / 2:.1f}" y="{y0 + 40}" '
                             f'text-anchor="middle" font-size="10">'
                             f'{results[("batching", t, k, w, c)][4]:.2f}×</text>')
                parts.append(f'<text x="{gx + len(SERVERS) * bar / 2:.1f}" y="{base + 14}" '
                             f'text-anchor="middle" font-size="10">{c}</text>')
            parts.append(f'<text x="{x0 + panel_w / 2 - 25:.1f}" y="{base + 28}" '
                         'text-anchor="middle" font-size="10">clients</text>')
    for b, s in enumerate(SERVERS):
        parts.append(f'<rect x="{20 + b * 140}" y="{H - 25}" width="12" height="12" '
                     f'fill="{colours[s]}"/><text x="{20 + b * 140 + 18}" '
                     f'y="{H - 15}">{s}</text>')
    parts.append("</svg>")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(parts) + "\n")
    os.replace(tmp, path)


def round_line(r, key, w, c, res):
    return (f"round {r + 1}: {label(key):28s} {w:>5s} tokens {c:3d} clients: "
            f"{res[0]:8.1f} req/s  p50 {res[1]:7.2f} ms  p99 {res[2]:7.2f} ms  "
            f"(by latency {res[3]:.1f} req/s)")


def instances_of(args):
    """(server, threads, kernels) of every server to start."""
    out = [(s, t, k) for t in args.threads for k in args.kernels for s in TFENC_SERVERS]
    return out + [(s, t, "-") for t in args.threads for s in SERVERS[2:]]


def measure(args):
    """{(server, threads, kernels, workload, clients): [run_load's, a round each]}."""
    if not os.path.exists(os.path.join(args.model, "model.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "serve_load", "model.py"),
                        args.model], check=True)
    texts = {w: workload_texts(w) for w in args.workloads}
    tmp = tempfile.mkdtemp()
    servers, runs = {}, {}
    try:
        for key in instances_of(args):
            servers[key] = start_server(*key, args, tmp)
        check_vectors(servers, workload_texts("mixed")[:16])
        for r in range(args.rounds):
            for w in args.workloads:
                for c in args.clients:
                    for key in servers:
                        k = stretch(texts[w], c)
                        res = run_load(servers[key][1], texts[w], c, args.seconds * k, WARMUP * k)
                        runs.setdefault((*key, w, c), []).append(res)
                        print(round_line(r, key, w, c, res), file=sys.stderr, flush=True)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait()
    return runs


def write_json(path, args, kernel_info, runs):
    with open(path, "w") as f:
        json.dump({"rounds": args.rounds, "seconds": args.seconds,
                   "max_batch_tokens": args.max_batch_tokens, "mixed_tokens": MIXED,
                   "threads": args.threads, "kernels": kernel_info,
                   "workloads": args.workloads, "clients": args.clients,
                   "runs": [{"server": k[0], "threads": k[1], "kernels": k[2], "tokens": k[3],
                             "clients": k[4], "rounds": [dict(zip(ROUND_FIELDS, x)) for x in v]}
                            for k, v in runs.items()]}, f, indent=1)


def read_json(path, args):
    """The kernel info and runs of a JSON that --json wrote; its settings into args."""
    with open(path) as f:
        data = json.load(f)
    for name in ("rounds", "seconds", "max_batch_tokens", "threads", "workloads", "clients"):
        setattr(args, name, data[name])
    args.kernels = list(data["kernels"])
    runs = {(x["server"], x["threads"], x["kernels"], x["tokens"], x["clients"]):
            [tuple(r[f] for f in ROUND_FIELDS) for r in x["rounds"]] for x in data["runs"]}
    for r in range(args.rounds):
        for w in args.workloads:
            for c in args.clients:
                for key in instances_of(args):
                    print(round_line(r, key, w, c, runs[(*key, w, c)][r]))
    print()
    return data["kernels"], runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tfenc", default="build/tools/tfenc")
    ap.add_argument("--model", default=os.path.join(HERE, "serve_load", "model"))
    ap.add_argument("--node-modules", default=os.path.join(HERE, "compare_ort", "node_modules"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--kernels", default="detected,Haswell")
    ap.add_argument("--workloads", default="16,128,mixed")
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--max-batch-tokens", type=int, default=16384)
    ap.add_argument("--json", help="write every round here")
    ap.add_argument("--from-json", help="measure nothing: the rounds, tables and plot of "
                    "what --json wrote")
    ap.add_argument("--svg")
    args = ap.parse_args()
    if args.from_json:
        kernel_info, runs = read_json(args.from_json, args)
    else:
        args.threads = [int(t) for t in args.threads.split(",")]
        args.kernels = args.kernels.split(",")
        args.workloads = args.workloads.split(",")
        args.clients = [int(c) for c in args.clients.split(",")]
        kernel_info = {k: kernels_ran(args, k) for k in args.kernels}
        for k, info in kernel_info.items():
            print(f"--kernels {k}: tfenc info: {info}", file=sys.stderr)
        runs = measure(args)
        if args.json:
            write_json(args.json, args, kernel_info, runs)
    kernel_names = {k: info.split(", ")[1].removeprefix("kernels ")
                    for k, info in kernel_info.items()}
    results = summarise(runs, args)
    print_tables(results, args, kernel_names)
    if args.svg:
        write_svg(args.svg, results, args, kernel_names)


if __name__ == "__main__":
    main()
