#!/usr/bin/python3
"""libtfenc's vision towers against ONNX Runtime, side by side in one run:
images/s of a ViT-B/32- and a ViT-B/16-shaped CLIP vision tower (224 x 224,
D 768, 12 heads, F 3072, 12 layers, quick_gelu, image_embeds through
visual_projection to 512) at batch 1 and 32, with the same deterministic
random weights exported from torch twice:

  <model>/config.json + model.safetensors   a CLIPVisionModelWithProjection folder
                                             as transformers saves one (libtfenc)
  <model>.onnx                               the same tower traced from torch 1.13
                                             (opset 17; input pixel_values [B, 3, 224,
                                             224], B dynamic; output image_embeds)

The torch module follows transformers' clip/modeling_clip.py
(CLIPVisionEmbeddings, pre_layrnorm, CLIPEncoderLayer with eager attention,
post_layernorm on the class token, visual_projection). Each side runs in its
own long-lived worker (bench/vision_bench.c, bench/compare_ort/
vision_ort_worker.js); per workload both take the same pixels, are warmed up,
then run one call each in turn, rotating who goes first, for --rounds rounds
(fewer at batch 32), and the medians are reported with the largest difference
of their image_embeds. With --coretypes "",Haswell a libtfenc worker runs per
OPENBLAS_CORETYPE value ("" = unset: the kernels OpenBLAS detects).

    /usr/bin/python3 bench/vision_compare.py --build build-vision [--threads 2]
        [--rounds 10] [--coretypes ,Haswell] [--models vit_b32,vit_b16] [--batches 1,32]

Needs python3-torch, node, and `ONNXRUNTIME_NODE_INSTALL=skip npm ci` in
bench/compare_ort.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
from safetensors_writer import write as write_safetensors  # noqa: E402

# name: patch size (the rest is ViT-B's)
MODELS = {"vit_b32": 32, "vit_b16": 16}
IMAGE, D, HEADS, FF, LAYERS, PROJECTION, EPS = 224, 768, 12, 3072, 12, 512, 1e-5
BATCHES = (1, 32)
SEED = 2026
OPSET = 17


def clip_weights(patch):
    """CLIPVisionModelWithProjection's tensors, float32, CLIP-like scales."""
    rng = np.random.default_rng(SEED + patch)
    grid = IMAGE // patch
    t = {}

    def normal(name, shape, std):
        t[name] = rng.normal(0.0, std, shape).astype(np.float32)

    def norm(name):
        t[name + ".weight"] = (1.0 + rng.normal(0.0, 0.02, (D,))).astype(np.float32)
        t[name + ".bias"] = rng.normal(0.0, 0.02, (D,)).astype(np.float32)

    def linear(name, out, inp, bias=True):
        normal(name + ".weight", (out, inp), inp ** -0.5)
        if bias:
            normal(name + ".bias", (out,), 0.02)
    p = "vision_model."
    normal(p + "embeddings.class_embedding", (D,), D ** -0.5)
    normal(p + "embeddings.patch_embedding.weight", (D, 3, patch, patch), 0.02)
    normal(p + "embeddings.position_embedding.weight", (grid * grid + 1, D), 0.02)
    norm(p + "pre_layrnorm")
    for l in range(LAYERS):
        q = f"{p}encoder.layers.{l}."
        for part in ("q_proj", "k_proj", "v_proj", "out_proj"):
            linear(q + "self_attn." + part, D, D)
        norm(q + "layer_norm1")
        linear(q + "mlp.fc1", FF, D)
        linear(q + "mlp.fc2", D, FF)
        norm(q + "layer_norm2")
    norm(p + "post_layernorm")
    linear("visual_projection", PROJECTION, D, bias=False)
    return t


class ClipVisionTower(torch.nn.Module):
    """CLIPVisionModelWithProjection.forward(pixel_values).image_embeds, as
    modeling_clip.py computes it, on the given tensors."""

    def __init__(self, tensors, patch):
        super().__init__()
        self.patch = patch
        self.w = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(
            torch.from_numpy(v), requires_grad=False) for k, v in tensors.items()})

    def g(self, name):
        return self.w[name.replace(".", "__")]

    def lin(self, name, x, bias=True):
        y = x @ self.g(name + ".weight").t()
        return y + self.g(name + ".bias") if bias else y

    def ln(self, name, x):
        return F.layer_norm(x, (D,), self.g(name + ".weight"), self.g(name + ".bias"), EPS)

    def forward(self, pixel_values):
        p, B = "vision_model.", pixel_values.shape[0]
        x = F.conv2d(pixel_values, self.g(p + "embeddings.patch_embedding.weight"),
                     stride=self.patch).flatten(2).transpose(1, 2)
        cls = self.g(p + "embeddings.class_embedding").reshape(1, 1, D).expand(B, 1, D)
        x = torch.cat([cls, x], dim=1) + self.g(p + "embeddings.position_embedding.weight")
        x = self.ln(p + "pre_layrnorm", x)
        T, dk = x.shape[1], D // HEADS
        for l in range(LAYERS):
            q = f"{p}encoder.layers.{l}."
            h = self.ln(q + "layer_norm1", x)
            qh, kh, vh = (self.lin(q + "self_attn." + n, h).reshape(B, T, HEADS, dk)
                          .transpose(1, 2) for n in ("q_proj", "k_proj", "v_proj"))
            a = torch.softmax(qh @ kh.transpose(-1, -2) * dk ** -0.5, dim=-1) @ vh
            x = x + self.lin(q + "self_attn.out_proj", a.transpose(1, 2).reshape(B, T, D))
            h = self.lin(q + "mlp.fc1", self.ln(q + "layer_norm2", x))
            x = x + self.lin(q + "mlp.fc2", h * torch.sigmoid(1.702 * h))
        pooled = self.ln(p + "post_layernorm", x[:, 0, :])
        return self.lin("visual_projection", pooled, bias=False)


def export(out_dir, name, patch):
    folder = os.path.join(out_dir, name)
    onnx_path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(onnx_path) and os.path.exists(os.path.join(folder, "model.safetensors")):
        return folder, onnx_path
    os.makedirs(folder, exist_ok=True)
    tensors = clip_weights(patch)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["CLIPVisionModelWithProjection"], "hidden_act": "quick_gelu",
              "hidden_size": D, "image_size": IMAGE, "intermediate_size": FF,
              "layer_norm_eps": EPS, "model_type": "clip_vision_model",
              "num_attention_heads": HEADS, "num_channels": 3, "num_hidden_layers": LAYERS,
              "patch_size": patch, "projection_dim": PROJECTION, "torch_dtype": "float32"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    model = ClipVisionTower(tensors, patch).eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 3, IMAGE, IMAGE),), onnx_path,
                          input_names=["pixel_values"], output_names=["image_embeds"],
                          dynamic_axes={"pixel_values": {0: "B"}, "image_embeds": {0: "B"}},
                          opset_version=OPSET)
    return folder, onnx_path


class Worker:
    def __init__(self, label, argv, env=None):
        self.label = label
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env, cwd=ROOT)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().strip()
        if not reply.startswith("ok"):
            raise RuntimeError(f"{self.label}: {line}: {reply or 'no reply'}")
        return reply[3:]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="meson build dir with bench/vision-bench")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=10, help="rounds at batch 1 (batch 32: a third)")
    ap.add_argument("--coretypes", default="," + os.environ.get("OPENBLAS_CORETYPE", "Haswell"),
                    help='OPENBLAS_CORETYPE values, one libtfenc worker each ("" = unset)')
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batches", default=",".join(map(str, BATCHES)),
                    help="batch sizes, each a workload")
    ap.add_argument("--models-dir", default=os.path.join(tempfile.gettempdir(), "tfenc_vision"))
    args = ap.parse_args()
    os.makedirs(args.models_dir, exist_ok=True)
    torch.manual_seed(SEED)
    bench_exe = os.path.join(args.build, "bench", "vision-bench")
    ort_js = os.path.join(HERE, "compare_ort", "vision_ort_worker.js")
    print(f"threads {args.threads}; medians of alternating calls; images/s = B / median")
    print(f"{'model':8} {'B':>3} {'side':24} {'ms':>10} {'images/s':>9} {'vs ORT':>7} "
          f"{'max|diff|':>9}")
    for name in args.models.split(","):
        folder, onnx_path = export(args.models_dir, name, MODELS[name])
        workers = [Worker("onnxruntime", ["node", ort_js])]
        for core in args.coretypes.split(","):
            env = dict(os.environ)
            env.pop("OPENBLAS_CORETYPE", None)
            if core:
                env["OPENBLAS_CORETYPE"] = core
            workers.append(Worker(f"libtfenc {core or 'detected'}", [bench_exe], env))
        ort_version = workers[0].ask(f"load {onnx_path} {args.threads}")
        workers[0].label = f"onnxruntime-node {ort_version}"
        for w in workers[1:]:
            w.ask(f"load {folder} {args.threads}")
        for B in map(int, args.batches.split(",")):
            rng = np.random.default_rng(SEED + B)
            pixels = rng.uniform(-1.8, 2.2, (B, 3, IMAGE, IMAGE)).astype(np.float32)
            px_path = os.path.join(args.models_dir, f"pixels_{B}.npy")
            np.save(px_path, pixels)
            for w in workers:
                w.ask(f"input {px_path}")
                w.ask("run")  # warm-up
            rounds = args.rounds if B == 1 else max(3, args.rounds // 3)
            times = {w.label: [] for w in workers}
            for r in range(rounds):
                for k in range(len(workers)):
                    w = workers[(r + k) % len(workers)]
                    times[w.label].append(float(w.ask("run")))
            outs = {}
            for w in workers:
                path = os.path.join(args.models_dir, "out.f32")
                w.ask(f"dump {path}")
                outs[w.label] = np.fromfile(path, dtype=np.float32)
            ort_ms = statistics.median(times[workers[0].label])
            for w in workers:
                ms = statistics.median(times[w.label])
                diff = float(np.max(np.abs(outs[w.label] - outs[workers[0].label])))
                print(f"{name:8} {B:>3} {w.label:24} {ms:>10.1f} {B / ms * 1e3:>9.2f} "
                      f"{ort_ms / ms:>6.2f}x {diff:>9.2e}", flush=True)
        for w in workers:
            w.close()


if __name__ == "__main__":
    main()
