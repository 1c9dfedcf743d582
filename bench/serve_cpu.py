#!/usr/bin/python3
"""Server CPU time a request, tfenc serve against the onnxruntime-node
batching server of bench/serve_load.py, at one workload: N requests of
16-token inputs (bench/serve_load/model.py's texts) from 64 keep-alive
clients, 1 forward thread. For each server: requests/s, the server
process's user + system CPU seconds over the N requests (/proc/PID/stat)
a request, and its inputs per forward call (tfenc: te_batch_next_size from
/metrics; ORT: the counts ort_batching_server.js writes to
$ORT_BATCH_COUNTS when it gets SIGTERM). With the clients on the same
cores, the server's CPU a request is what bounds its rate; its forward's
share is timed apart (tfenc-bench and a session.run loop).

    /usr/bin/python3 bench/serve_cpu.py [--tfenc build/tools/tfenc] [--requests 30]
        [--kernels Haswell]

With --baseline OTHER_TFENC it compares two builds of tfenc serve instead
(a change's A/B): both servers run at once and take turns, --rounds rounds
of the same load, and each round prints both rates and CPU times a request
and the ratio of the rates (--tfenc's over the baseline's).
"""
import argparse
import http.client
import os
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "serve_load"))
import model  # noqa: E402
import serve_load  # noqa: E402

CLIENTS = 64
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def metric(port, name):
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("GET", "/metrics")
    lines = c.getresponse().read().decode().splitlines()
    return sum(float(l.split()[-1]) for l in lines if l.startswith(name + " "))


def load(port, texts, per_client):
    def client(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for i in range(per_client):
            serve_load.embed(port, texts[(k + i) % len(texts)], c)
    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    start = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.time() - start


def cpu_per_request(proc, port, texts, per_client):
    """(req/s, server CPU ms a request) of one load."""
    cpu0 = cpu_seconds(proc.pid)
    wall = load(port, texts, per_client)
    n = CLIENTS * per_client
    return n / wall, 1000 * (cpu_seconds(proc.pid) - cpu0) / n


def compare_builds(args, texts, tmp):
    servers = {}
    for name, path in (("baseline", args.baseline), ("tfenc", args.tfenc)):
        build = argparse.Namespace(**vars(args))
        build.tfenc = path
        servers[name] = serve_load.start_server("batching", 1, args.kernels, build,
                                                os.path.join(tmp, name))
        load(servers[name][1], texts, 3)  # warm-up
    ratios = []
    for r in range(args.rounds):
        got = {name: cpu_per_request(proc, port, texts, args.requests)
               for name, (proc, port) in servers.items()}
        ratios.append(got["tfenc"][0] / got["baseline"][0])
        print(f"round {r + 1}: " + "; ".join(f"{name} {rate:.1f} req/s, {cpu:.3f} ms CPU a "
                                             f"request" for name, (rate, cpu) in got.items())
              + f"; tfenc / baseline {ratios[-1]:.3f}", flush=True)
    for proc, _ in servers.values():
        proc.terminate()
        proc.wait()
    print(f"median tfenc / baseline: {sorted(ratios)[len(ratios) // 2]:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfenc", default=os.path.join(HERE, "..", "build", "tools", "tfenc"))
    ap.add_argument("--model", default=os.path.join(HERE, "serve_load", "model"))
    ap.add_argument("--node-modules", default=os.path.join(HERE, "compare_ort", "node_modules"))
    ap.add_argument("--requests", type=int, default=30, help="requests a client")
    ap.add_argument("--kernels", default="Haswell", help="OPENBLAS_CORETYPE, or detected")
    ap.add_argument("--baseline", help="another tfenc to compare --tfenc with")
    ap.add_argument("--rounds", type=int, default=5, help="with --baseline")
    args = ap.parse_args()
    args.max_batch_tokens = 16384
    texts = model.texts(16, 256, 1)
    tmp = tempfile.mkdtemp()
    if args.baseline:
        for name in ("baseline", "tfenc"):
            os.mkdir(os.path.join(tmp, name))
        return compare_builds(args, texts, tmp)
    counts = os.path.join(tmp, "ort_batch_counts")
    os.environ["ORT_BATCH_COUNTS"] = counts
    for server in ("batching", "ort-batching"):
        proc, port = serve_load.start_server(server, 1, args.kernels, args, tmp)
        load(port, texts, 3)  # warm-up
        if server == "batching":
            calls0 = metric(port, "te_batch_next_size_count")
            inputs0 = metric(port, "te_batch_next_size_sum")
        n = CLIENTS * args.requests
        rate, cpu_ms = cpu_per_request(proc, port, texts, args.requests)
        if server == "batching":
            calls = metric(port, "te_batch_next_size_count") - calls0
            inputs = metric(port, "te_batch_next_size_sum") - inputs0
        proc.terminate()
        proc.wait()
        if server == "ort-batching":  # its counts include the warm-up's
            runs, rows = (int(x) for x in open(counts).read().split())
            calls, inputs = runs, rows
        print(f"{server:13s}: {n} requests in {n / rate:.2f} s = {rate:.1f} req/s; server CPU "
              f"{cpu_ms:.3f} ms a request; {inputs / calls:.1f} inputs a forward call",
              flush=True)


if __name__ == "__main__":
    main()
