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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfenc", default=os.path.join(HERE, "..", "build", "tools", "tfenc"))
    ap.add_argument("--model", default=os.path.join(HERE, "serve_load", "model"))
    ap.add_argument("--node-modules", default=os.path.join(HERE, "compare_ort", "node_modules"))
    ap.add_argument("--requests", type=int, default=30, help="requests a client")
    ap.add_argument("--kernels", default="Haswell", help="OPENBLAS_CORETYPE, or detected")
    args = ap.parse_args()
    args.max_batch_tokens = 16384
    texts = model.texts(16, 256, 1)
    tmp = tempfile.mkdtemp()
    counts = os.path.join(tmp, "ort_batch_counts")
    os.environ["ORT_BATCH_COUNTS"] = counts
    for server in ("batching", "ort-batching"):
        proc, port = serve_load.start_server(server, 1, args.kernels, args, tmp)
        load(port, texts, 3)  # warm-up
        if server == "batching":
            calls0 = metric(port, "te_batch_next_size_count")
            inputs0 = metric(port, "te_batch_next_size_sum")
        n = CLIENTS * args.requests
        cpu0 = cpu_seconds(proc.pid)
        wall = load(port, texts, args.requests)
        cpu = cpu_seconds(proc.pid) - cpu0
        if server == "batching":
            calls = metric(port, "te_batch_next_size_count") - calls0
            inputs = metric(port, "te_batch_next_size_sum") - inputs0
        proc.terminate()
        proc.wait()
        if server == "ort-batching":  # its counts include the warm-up's
            runs, rows = (int(x) for x in open(counts).read().split())
            calls, inputs = runs, rows
        print(f"{server:13s}: {n} requests in {wall:.2f} s = {n / wall:.1f} req/s; server CPU "
              f"{1000 * cpu / n:.3f} ms a request; {inputs / calls:.1f} inputs a forward call",
              flush=True)


if __name__ == "__main__":
    main()
