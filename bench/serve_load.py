#!/usr/bin/python3
"""Load benchmark of tfenc serve: requests/s and p50/p99 latency at 1, 8
and 64 concurrent clients (keep-alive connections, one input a request) for
16- and 128-token inputs, against three servers of one model (model.py's
MiniLM-L6-shaped BERT with mean pooling and normalisation):

  batching     tfenc serve, dynamic batching (--max-batch-tokens 16384)
  no-batching  tfenc serve --max-batch-tokens 16: every input runs alone
  ort          onnxruntime-node behind Node's http, one request at a time
               (serve_load/ort_server.js), the same model exported to ONNX

Each server runs its forward on --threads threads. The configurations run
in turn within each round (the three servers one after another for each
size and client count), so that a change in the machine's load shows in
all three alike; the figures are each configuration's median over the
rounds. The clients are this script's processes (several, each with
threads), on the same machine; each run counts the requests that end in its
window (--seconds, longer for 64 clients of 128 tokens) after a warm-up
second. Before measuring, each server's vector of
one text is compared with the batching server's (max |difference|).

    /usr/bin/python3 bench/serve_load.py [--tfenc build/tools/tfenc]
        [--rounds 3] [--seconds 3] [--threads 1] [--json OUT.json] [--svg OUT.svg]
"""
import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "serve_load"))
import model  # noqa: E402

SIZES = (16, 128)
CLIENTS = (1, 8, 64)
SERVERS = ("batching", "no-batching", "ort")
WARMUP = 1.0  # seconds of each run not counted


def start_server(name, args, tmp):
    port_file = os.path.join(tmp, name + ".port")
    if name == "ort":
        env = dict(os.environ, NODE_PATH=args.node_modules)
        cmd = ["node", os.path.join(HERE, "serve_load", "ort_server.js"), args.model,
               port_file, str(args.threads)]
    else:
        env = dict(os.environ)
        cmd = [args.tfenc, "serve", "--model", args.model, "--port", "0", "--port-file",
               port_file, "--threads", str(args.threads)]
        if name == "no-batching":
            cmd += ["--max-batch-tokens", "16"]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    for _ in range(6000):
        if os.path.exists(port_file):
            return proc, int(open(port_file).read())
        if proc.poll() is not None:
            raise SystemExit(f"{name}: exited with {proc.returncode}")
        time.sleep(0.01)
    raise SystemExit(f"{name}: no port after 60 s")


def embed(port, text, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", "/embed", body=json.dumps({"inputs": text}),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        raise RuntimeError(f"{r.status}: {body[:200]}")
    return json.loads(body)[0]


def client_process(port, texts, threads, start, stop, out):
    """threads clients until `stop`; puts the latencies of the requests
    that ended after `start`."""
    latencies, lock = [], threading.Lock()

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        mine, i = [], k
        while True:
            t0 = time.time()
            if t0 >= stop:
                break
            embed(port, texts[i % len(texts)], conn)
            t1 = time.time()
            if t1 >= start and t1 < stop:
                mine.append(t1 - t0)
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


def run_load(port, texts, clients, seconds):
    """(requests/s, p50 ms, p99 ms) of `clients` concurrent clients."""
    procs = min(clients, 4)
    start = time.time() + 0.3 + WARMUP
    stop = start + seconds
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=client_process,
                                  args=(port, texts[k::procs], clients // procs, start, stop, q))
          for k in range(procs)]
    for p in ps:
        p.start()
    lat = sorted(x for _ in ps for x in q.get())
    for p in ps:
        p.join()
    if not lat:  # not one request ended in the window: too short for this load
        return 0.0, float("nan"), float("nan")
    pct = lambda f: 1e3 * lat[min(len(lat) - 1, int(f * len(lat)))]  # noqa: E731
    return len(lat) / seconds, pct(0.50), pct(0.99)


def window(args, size, clients):
    """The seconds measured: --seconds, longer where a request takes long
    (many clients of long inputs wait for several calls of a thousand tokens)."""
    return args.seconds * max(1.0, size * clients / 2048)


def write_svg(path, results, threads):
    """Requests/s of each server, a panel per input size, a group per client count."""
    colours = {"batching": "#1f77b4", "no-batching": "#ff7f0e", "ort": "#2ca02c"}
    W, Hp, top, left = 760, 260, 40, 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{2 * Hp + 60}" '
             'font-family="DejaVu Sans, sans-serif" font-size="12">',
             f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">tfenc serve: '
             f'requests/s (MiniLM-L6-shaped, {threads} compute thread(s), median of rounds)</text>']
    for panel, size in enumerate(SIZES):
        y0 = top + panel * Hp
        peak = max(results[(s, size, c)][0] for s in SERVERS for c in CLIENTS)
        plot_h, plot_w = Hp - 70, W - left - 20
        parts.append(f'<text x="{left}" y="{y0 + 12}">{size}-token inputs</text>')
        parts.append(f'<line x1="{left}" y1="{y0 + 20 + plot_h}" x2="{left + plot_w}" '
                     f'y2="{y0 + 20 + plot_h}" stroke="#000"/>')
        for g, c in enumerate(CLIENTS):
            gx = left + g * plot_w / len(CLIENTS)
            for b, s in enumerate(SERVERS):
                rps = results[(s, size, c)][0]
                h = plot_h * rps / peak
                x = gx + 20 + b * 60
                y = y0 + 20 + plot_h - h
                parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="50" height="{h:.1f}" '
                             f'fill="{colours[s]}"/>')
                parts.append(f'<text x="{x + 25:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                             f'font-size="10">{rps:.0f}</text>')
            parts.append(f'<text x="{gx + 110:.1f}" y="{y0 + 36 + plot_h}" '
                         f'text-anchor="middle">{c} client{"s" if c > 1 else ""}</text>')
    for b, s in enumerate(SERVERS):
        parts.append(f'<rect x="{left + b * 160}" y="{2 * Hp + 30}" width="12" height="12" '
                     f'fill="{colours[s]}"/><text x="{left + b * 160 + 18}" '
                     f'y="{2 * Hp + 40}">{s}</text>')
    parts.append("</svg>")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(parts) + "\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tfenc", default="build/tools/tfenc")
    ap.add_argument("--model", default=os.path.join(HERE, "serve_load", "model"))
    ap.add_argument("--node-modules", default=os.path.join(HERE, "compare_ort", "node_modules"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--svg")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.model, "model.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "serve_load", "model.py"),
                        args.model], check=True)
    texts = {n: model.texts(n, 256, seed=n) for n in SIZES}
    tmp = tempfile.mkdtemp()
    servers = {name: start_server(name, args, tmp) for name in SERVERS}
    try:
        ref = embed(servers["batching"][1], texts[16][0])
        for name in SERVERS[1:]:
            got = embed(servers[name][1], texts[16][0])
            print(f"{name}: max |difference| from batching's vector: "
                  f"{max(abs(a - b) for a, b in zip(got, ref)):.2e}", file=sys.stderr)
        runs = {}
        for r in range(args.rounds):
            for size in SIZES:
                for c in CLIENTS:
                    for name in SERVERS:
                        res = run_load(servers[name][1], texts[size], c, window(args, size, c))
                        runs.setdefault((name, size, c), []).append(res)
                        print(f"round {r + 1}: {name:12s} {size:4d} tokens {c:3d} clients: "
                              f"{res[0]:8.1f} req/s  p50 {res[1]:7.2f} ms  p99 {res[2]:7.2f} ms",
                              file=sys.stderr)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait()
    results = {k: tuple(statistics.median(x[i] for x in v) for i in range(3))
               for k, v in runs.items()}
    print(f"| tokens | clients | server | req/s | p50 ms | p99 ms | req/s vs ort |")
    print(f"|---:|---:|---|---:|---:|---:|---:|")
    for size in SIZES:
        for c in CLIENTS:
            for name in SERVERS:
                rps, p50, p99 = results[(name, size, c)]
                print(f"| {size} | {c} | {name} | {rps:.1f} | {p50:.2f} | {p99:.2f} | "
                      f"{rps / results[('ort', size, c)][0]:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "rounds": args.rounds, "seconds": args.seconds,
                       "runs": [{"server": k[0], "tokens": k[1], "clients": k[2],
                                 "rounds": v} for k, v in runs.items()]}, f, indent=1)
    if args.svg:
        write_svg(args.svg, results, args.threads)


if __name__ == "__main__":
    main()
