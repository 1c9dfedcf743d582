#!/usr/bin/python3
"""libtfenc against PyTorch's nn.TransformerEncoderLayer, side by side in one
process: the same BERT-base layer (D 768, 12 heads, F 3072, GELU, post-norm,
the same weights, outputs checked to agree), timed in alternation per
sequence length. PyTorch runs in eval mode under torch.inference_mode() on
its fast path (batch_first); its fastest thread setting is found first
(torch.set_num_threads(1) or (2), OpenBLAS with OPENBLAS_NUM_THREADS, both
cores by default). Prints median ms, GFLOP/s and the ratio per length;
writes a PNG plot and CSV.

    PYTHONPATH=python /usr/bin/python3 bench/compare_torch.py \\
        [--lengths 16,64,...] [--repeats 7] [--plot compare.png] [--csv compare.csv]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tfenc  # noqa: E402

D, H, F = 768, 12, 3072


def flops(T, D=D, F=F):
    return 8 * T * D * D + 4 * T * D * F + 4 * T * T * D


def make_pair(seed=0):
    """A torch layer and a tfenc encoder with the same weights."""
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(D, H, F, dropout=0.0, activation="gelu",
                                       batch_first=True).eval()
    enc = tfenc.Encoder(D, H, F, 1, position="none", activation="gelu")
    sd = {k: v.detach().numpy() for k, v in layer.state_dict().items()}
    for i, n in enumerate("qkv"):
        enc[f"layers.0.attn.{n}.weight"] = sd["self_attn.in_proj_weight"][i * D:(i + 1) * D]
        enc[f"layers.0.attn.{n}.bias"] = sd["self_attn.in_proj_bias"][i * D:(i + 1) * D]
    for theirs, ours in [("self_attn.out_proj", "attn.out"), ("linear1", "ffn.up"),
                         ("linear2", "ffn.down"), ("norm1", "norm1"), ("norm2", "norm2")]:
        enc[f"layers.0.{ours}.weight"] = sd[f"{theirs}.weight"]
        enc[f"layers.0.{ours}.bias"] = sd[f"{theirs}.bias"]
    return layer, enc


def time_once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def best_torch_threads(layer, T=256):
    """The torch.set_num_threads setting that runs a T-token layer fastest."""
    x = torch.randn(1, T, D)
    times = {}
    for n in (1, 2):
        torch.set_num_threads(n)
        with torch.inference_mode():
            layer(x)
            times[n] = min(time_once(lambda: layer(x)) for _ in range(5))
    return min(times, key=times.get), times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", default="16,64,128,256,512,1024,2048,4096")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--plot", default="compare_torch.png")
    ap.add_argument("--csv", default="compare_torch.csv")
    args = ap.parse_args()
    lengths = [int(t) for t in args.lengths.split(",")]

    layer, enc = make_pair()
    threads, probe = best_torch_threads(layer)
    torch.set_num_threads(threads)
    print(f"torch {torch.__version__}: set_num_threads(1) {probe[1] * 1e3:.1f} ms, (2) "
          f"{probe[2] * 1e3:.1f} ms at T=256 -> using {threads}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset (all cores)')}; libtfenc "
          f"{tfenc.__version__}")
    x = torch.randn(1, 8, D)
    with torch.inference_mode():
        diff = np.abs(layer(x).numpy() - enc(input_embeds=x.numpy()).last_hidden_state).max()
    print(f"same weights, same input: outputs differ by at most {diff:.1e}\n")
    assert diff < 1e-4, diff

    print(f"{'T':>6} {'torch ms':>10} {'tfenc ms':>10} {'torch GF/s':>11} {'tfenc GF/s':>11} "
          f"{'speed-up':>9}")
    rows = []
    for T in lengths:
        x = torch.randn(1, T, D)
        xn = x.numpy()
        with torch.inference_mode():
            layer(x), enc(input_embeds=xn)  # warm-up
            reps = args.repeats if T <= 2048 else max(3, args.repeats // 2)
            tt, ft = [], []
            for _ in range(reps):  # alternating, so both see the same machine
                tt.append(time_once(lambda: layer(x)))
                ft.append(time_once(lambda: enc(input_embeds=xn)))
        t_ms, f_ms = statistics.median(tt) * 1e3, statistics.median(ft) * 1e3
        rows.append((T, t_ms, f_ms))
        print(f"{T:>6} {t_ms:>10.2f} {f_ms:>10.2f} {flops(T) / t_ms / 1e6:>11.1f} "
              f"{flops(T) / f_ms / 1e6:>11.1f} {t_ms / f_ms:>8.2f}x")

    with open(args.csv, "w") as f:
        f.write("T,torch_ms,tfenc_ms,torch_gflops,tfenc_gflops,speedup\n")
        for T, t, fm in rows:
            f.write(f"{T},{t:.4f},{fm:.4f},{flops(T) / t / 1e6:.2f},{flops(T) / fm / 1e6:.2f},"
                    f"{t / fm:.4f}\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    Ts = [r[0] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    a.loglog(Ts, [r[1] for r in rows], "o-", label=f"PyTorch {torch.__version__}")
    a.loglog(Ts, [r[2] for r in rows], "s-", label="libtfenc")
    a.set(xlabel="sequence length T", ylabel="ms per layer (median)",
          title="BERT-base layer, batch 1, 2 cores")
    b.semilogx(Ts, [flops(r[0]) / r[1] / 1e6 for r in rows], "o-", label="PyTorch")
    b.semilogx(Ts, [flops(r[0]) / r[2] / 1e6 for r in rows], "s-", label="libtfenc")
    b.set(xlabel="sequence length T", ylabel="GFLOP/s", title="throughput")
    for ax in (a, b):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    print(f"\nwrote {args.plot} and {args.csv}")


if __name__ == "__main__":
    main()
