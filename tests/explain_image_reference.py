"""explain_image_reference.py — what `tfenc explain --image --html` must draw
for a folder of tests/data/image_pipeline/ and an image file, computed
independently in float64 with PyTorch 1.13 (check_explain_html.py compares):

  the image          gen_images.py's load (PIL open, exif_transpose,
                     convert("RGB")) and the processor's resize and center
                     crop (gen_images.resize, .center_crop): the uint8 image
                     the tower reads before rescale and normalise, and the
                     region of the decoded image the crop keeps
  pixel_values       gen_images.preprocess
  the tower          gen_vision.py's references (vit_embeddings,
                     clip_embeddings, siglip_embeddings, its pre-norm layer),
                     from the float32 weights of the folder's
                     model.safetensors, with each layer's attention
                     probabilities kept: softmax(Q K^T / sqrt(d_k)) as
                     ViTSelfAttention / CLIPAttention / SiglipAttention
                     (eager) compute them; SigLIP's head: the probe's weights
                     from torch.nn.MultiheadAttention(need_weights=True,
                     average_attn_weights=False), as
                     SiglipMultiheadAttentionPoolingHead.forward calls it
  the maps           the class token's row over the patches (ViT, CLIP); for
                     SigLIP, without a class token, each patch's column
                     averaged over the queries, and the probe's row
  the rollout        Abnar & Zuidema (2020), "Quantifying Attention Flow in
                     Transformers", section 3 (attention rollout): heads
                     averaged, A = 0.5 W + 0.5 I (the identity for the
                     residual, rows renormalised), R = A_L ... A_1; the class
                     token's row of R, or (SigLIP) the probe's weights,
                     heads averaged, times R
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))
import gen_images  # noqa: E402
import gen_vision  # noqa: E402

torch.set_default_dtype(torch.float64)

# family: (weights' prefix, layer names, the layers' prefix, activation, eps)
FAMILIES = {
    "vit": ("vit.", gen_vision.VIT_LAYER, "vit.encoder.layer.", "gelu", 1e-12),
    "vit_model": ("", gen_vision.VIT_LAYER, "encoder.layer.", "gelu", 1e-12),
    "clip": ("vision_model.", gen_vision.CLIP_LAYER, "vision_model.encoder.layers.",
             "quick_gelu", 1e-5),
    "siglip": ("vision_model.", gen_vision.CLIP_LAYER, "vision_model.encoder.layers.",
               "gelu_pytorch_tanh", 1e-6),
}


class Weights:
    """A model.safetensors read by hand (an 8-byte header length, the JSON
    header, the data): gen_vision.Weights' get() and tensors."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        n = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + n])
        self.tensors = {}
        for name, t in header.items():
            if name == "__metadata__":
                continue
            assert t["dtype"] == "F32", (name, t["dtype"])
            a, b = t["data_offsets"]
            self.tensors[name] = np.frombuffer(data[8 + n + a:8 + n + b],
                                               dtype="<f4").reshape(t["shape"])

    def get(self, name):
        return torch.from_numpy(self.tensors[name].astype(np.float64))


def load_rgb(path):
    """image_utils.load_image: PIL open, exif_transpose, convert("RGB")."""
    return np.array(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))


def shown_image(rgb, config):
    """The processor's resize and center crop of the uint8 image, as
    gen_images.preprocess does them, before rescale and normalise."""
    name = config.get("image_processor_type", config.get("feature_extractor_type", ""))
    kind = "clip" if name.startswith("CLIP") else "vit" if name.startswith("ViT") else "siglip"
    image = rgb
    if config.get("do_resize", True):
        size = gen_images.size_dict(config, kind)
        if "shortest_edge" in size:
            h, w = gen_images.get_resize_output_image_size(*image.shape[:2],
                                                           size["shortest_edge"])
        else:
            h, w = size["height"], size["width"]
        image = gen_images.resize(image, h, w, config.get("resample", 2 if kind == "vit" else 3))
    if kind == "clip" and config.get("do_center_crop", True):
        crop = gen_images.crop_dict(config)
        image = gen_images.center_crop(image, crop["height"], crop["width"])
    return image


def crop_box(rgb, config):
    """The region of the decoded image the center crop keeps, [x, y, width,
    height] in its pixels (the resize undone): gen_images.center_crop's top
    and left, rounded to 2 decimals as the page writes them."""
    resized = shown_image(rgb, dict(config, do_center_crop=False))
    side = gen_vision.IMAGE
    h, w = resized.shape[:2]
    sy, sx = rgb.shape[0] / h, rgb.shape[1] / w
    top = (h - side) // 2 if h >= side else -math.ceil((side - h) / 2)
    left = (w - side) // 2 if w >= side else -math.ceil((side - w) / 2)
    return [round(v, 2) for v in (left * sx, top * sy, side * sx, side * sy)]


def attention_probs(w, p, names, x):
    """gen_vision.attention's softmax(Q K^T / sqrt(d_k)) [B, H, T, T] and
    the attention block's output."""
    B, T, D = x.shape
    heads = gen_vision.HEADS
    dk = D // heads

    def split(t):
        return t.view(B, T, heads, dk).transpose(1, 2)
    q, k, v = (split(gen_vision.linear(w, p + names[n], x)) for n in "qkv")
    probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dk), dim=-1)
    ctx = (probs @ v).transpose(1, 2).reshape(B, T, D)
    return probs, gen_vision.linear(w, p + names["o"], ctx)


def encoder(w, family, x):
    """gen_vision.encoder_layer, every layer's attention probabilities kept."""
    _, names, prefix, act, eps = FAMILIES[family]
    probs = []
    for l in range(gen_vision.LAYERS):
        p = f"{prefix}{l}."
        a, out = attention_probs(w, p, names, gen_vision.layer_norm(w, p + names["ln1"], x, eps))
        probs.append(a)
        x = x + out
        h = gen_vision.activation(act, gen_vision.linear(
            w, p + names["fc1"], gen_vision.layer_norm(w, p + names["ln2"], x, eps)))
        x = x + gen_vision.linear(w, p + names["fc2"], h)
    return x, probs


def probe_weights(w, pfx, h):
    """SiglipMultiheadAttentionPoolingHead's nn.MultiheadAttention weights
    [B, H, 1, T] of the probe over the last hidden state h."""
    D = h.shape[-1]
    mha = torch.nn.MultiheadAttention(D, gen_vision.HEADS, batch_first=True)
    mha.in_proj_weight.data = w.get(pfx + "attention.in_proj_weight")
    mha.in_proj_bias.data = w.get(pfx + "attention.in_proj_bias")
    mha.out_proj.weight.data = w.get(pfx + "attention.out_proj.weight")
    mha.out_proj.bias.data = w.get(pfx + "attention.out_proj.bias")
    probe = w.get(pfx + "probe").repeat(h.shape[0], 1, 1)
    with torch.no_grad():
        return mha(probe, h, h, need_weights=True, average_attn_weights=False)[1]


def rollout(probs, query):
    """Abnar & Zuidema's rollout of probs (each [H, T, T]): the row `query`
    (T) of the tokens reached, times R = A_L ... A_1."""
    T = probs[0].shape[-1]
    r = np.eye(T)
    for a in probs:
        a = a.mean(axis=0) + np.eye(T)
        a = a / a.sum(axis=1, keepdims=True)
        r = a @ r
    return query @ r


def reference(folder, family, image_path):
    """What the page of folder on image_path must show: the image, the maps
    [L, H, P], the probe's [H, P] (SigLIP) and the rollout [P]."""
    with open(os.path.join(folder, "preprocessor_config.json")) as f:
        config = json.load(f)
    rgb = load_rgb(image_path)
    px = torch.from_numpy(gen_images.preprocess(rgb, config).astype(np.float64))[None]
    w = Weights(os.path.join(folder, "model.safetensors"))
    pfx = FAMILIES[family][0]
    embed = {"vit": gen_vision.vit_embeddings, "vit_model": gen_vision.vit_embeddings,
             "clip": gen_vision.clip_embeddings, "siglip": gen_vision.siglip_embeddings}[family]
    x = embed(w, pfx, px)
    if family == "clip":
        x = gen_vision.layer_norm(w, pfx + "pre_layrnorm", x, FAMILIES[family][4])
    h, probs = encoder(w, family, x)
    probs = [a[0].numpy() for a in probs]  # each [H, T, T]
    out = {"image": shown_image(rgb, config), "crop": crop_box(rgb, config)}
    if family == "siglip":
        h = gen_vision.layer_norm(w, pfx + "post_layernorm", h, FAMILIES[family][4])
        probe = probe_weights(w, pfx + "head.", h)[0, :, 0, :].numpy()  # [H, T]
        out["maps"] = np.array([a.mean(axis=1) for a in probs])  # column means: [L, H, T]
        out["probe"] = probe
        out["rollout"] = rollout(probs, probe.mean(axis=0))
    else:
        out["maps"] = np.array([a[:, 0, 1:] for a in probs])
        query = np.zeros(probs[0].shape[-1])
        query[0] = 1.0
        out["rollout"] = rollout(probs, query)[1:]
    return out
