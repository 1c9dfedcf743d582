#!/usr/bin/python3
"""Writes tests/data/vision/: small random-weight vision model folders laid out
as the Hugging Face hub holds them, and expected.json in each: the outputs
computed in float64 by the references below from exactly the float32 weights
stored, for two random pixel tensors (pixels_32x32.npy, and pixels_40x56.npy
for interpolate_pos_encoding on a grid of another size and shape).

  vit_classifier  google/vit-base-patch16-224: ViTForImageClassification ("vit."
                  prefix, classifier over id2label's 3 labels)
  vit_model       a ViTModel folder (no prefix, the pooler, qkv_bias false)
  clip            openai/clip-vit-base-patch32: CLIPModel (vision_model.*,
                  visual_projection, and a text tower the loader leaves alone)
  st_clip         sentence-transformers/clip-ViT-B-32: modules.json with a
                  sentence_transformers.models.CLIPModel module in 0_CLIPModel/
  siglip          google/siglip-base-patch16-224: SiglipModel, its vision_config
                  giving only sizes (hidden_act and layer_norm_eps are
                  SiglipVisionConfig's defaults), the attention-pooling head
  malformed/      folders the loader must refuse (test_vision.c has the messages)

transformers cannot be installed here, so each reference follows the upstream
source it names (transformers/models/...):
  vit_embeddings        vit/modeling_vit.py ViTEmbeddings.forward, ViTPatchEmbeddings.forward
                        (nn.Conv2d, stride = kernel = patch_size), ViTEmbeddings.
                        interpolate_pos_encoding (bicubic, size=(H/p, W/p), align_corners=False)
  clip_embeddings       clip/modeling_clip.py CLIPVisionEmbeddings.forward and
                        .interpolate_pos_encoding
  siglip_embeddings     siglip/modeling_siglip.py SiglipVisionEmbeddings.forward and
                        .interpolate_pos_encoding
  encoder_layer         ViTLayer.forward (layernorm_before, ViTSelfAttention eager,
                        ViTSelfOutput, residual, layernorm_after, ViTIntermediate, ViTOutput),
                        CLIPEncoderLayer.forward / SiglipEncoderLayer.forward (layer_norm1,
                        CLIPAttention / SiglipAttention eager, residual, layer_norm2,
                        CLIPMLP / SiglipMLP); the same pre-norm layer
  activation            activations.py ACT2FN: "gelu" GELUActivation (erf),
                        "gelu_pytorch_tanh" PytorchGELUTanh, "quick_gelu" QuickGELUActivation
  vit_forward           ViTModel.forward (layernorm over every token, ViTPooler: dense + tanh
                        on token 0), ViTForImageClassification.forward (classifier on
                        sequence_output[:, 0, :])
  clip_forward          CLIPVisionTransformer.forward (pre_layrnorm, encoder, pooled =
                        post_layernorm(last_hidden_state[:, 0, :])), CLIPModel.
                        get_image_features (visual_projection, no bias, not normalised)
  siglip_forward        SiglipVisionTransformer.forward (post_layernorm over every token,
                        head), SiglipMultiheadAttentionPoolingHead.forward (probe repeated,
                        torch.nn.MultiheadAttention(batch_first=True) with in_proj_weight /
                        out_proj, residual, layernorm, SiglipMLP, row 0)
Convolution, bicubic interpolation and nn.MultiheadAttention are torch 1.13's own
(float64), as upstream calls them.

    /usr/bin/python3 tests/data/gen_vision.py"""
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "vision")
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
from safetensors_writer import write as write_safetensors  # noqa: E402

torch.set_default_dtype(torch.float64)

IMAGE, PATCH, CHANNELS = 32, 8, 3
D, HEADS, FF, LAYERS = 32, 2, 64, 2
SIZES = [(32, 32), (40, 56)]  # the trained size, then one interpolated to a 5 x 7 grid
BATCH = 2


# ---- weights ---------------------------------------------------------------------------

class Weights:
    """float32 tensors under upstream's names, drawn from one generator; get()
    gives a float64 copy for the references."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.tensors = {}

    def add(self, name, shape, kind):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        if kind == "linear":
            v = self.rng.normal(0.0, 1.0 / math.sqrt(fan_in), shape)
        elif kind == "bias":
            v = self.rng.normal(0.0, 0.1, shape)
        elif kind == "norm_w":
            v = 1.0 + self.rng.normal(0.0, 0.1, shape)
        elif kind == "embed":
            v = self.rng.normal(0.0, 0.5, shape)
        else:
            raise ValueError(kind)
        self.tensors[name] = v.astype(np.float32)

    def linear(self, name, out, inp, bias=True):
        self.add(name + ".weight", (out, inp), "linear")
        if bias:
            self.add(name + ".bias", (out,), "bias")

    def norm(self, name, width=D):
        self.add(name + ".weight", (width,), "norm_w")
        self.add(name + ".bias", (width,), "bias")

    def get(self, name):
        return torch.from_numpy(self.tensors[name].astype(np.float64))

    def save(self, d):
        write_safetensors(os.path.join(d, "model.safetensors"), self.tensors)


VIT_LAYER = {"q": "attention.attention.query", "k": "attention.attention.key",
             "v": "attention.attention.value", "o": "attention.output.dense",
             "ln1": "layernorm_before", "fc1": "intermediate.dense", "fc2": "output.dense",
             "ln2": "layernorm_after"}
CLIP_LAYER = {"q": "self_attn.q_proj", "k": "self_attn.k_proj", "v": "self_attn.v_proj",
              "o": "self_attn.out_proj", "ln1": "layer_norm1", "fc1": "mlp.fc1",
              "fc2": "mlp.fc2", "ln2": "layer_norm2"}


def add_layers(w, prefix, names, qkv_bias=True):
    for l in range(LAYERS):
        p = f"{prefix}{l}."
        for part in "qkv":
            w.linear(p + names[part], D, D, bias=qkv_bias)
        w.linear(p + names["o"], D, D)
        w.norm(p + names["ln1"])
        w.linear(p + names["fc1"], FF, D)
        w.linear(p + names["fc2"], D, FF)
        w.norm(p + names["ln2"])


# ---- references ------------------------------------------------------------------------

def activation(name, x):
    """transformers' ACT2FN[name]."""
    if name == "gelu":
        return F.gelu(x)
    if name == "gelu_pytorch_tanh":
        return F.gelu(x, approximate="tanh")
    if name == "quick_gelu":
        return x * torch.sigmoid(1.702 * x)
    raise ValueError(name)


def linear(w, name, x, bias=True):
    y = x @ w.get(name + ".weight").T
    return y + w.get(name + ".bias") if bias and name + ".bias" in w.tensors else y


def layer_norm(w, name, x, eps):
    return F.layer_norm(x, (x.shape[-1],), w.get(name + ".weight"), w.get(name + ".bias"), eps)


def patch_embed(w, name, pixels, bias):
    """ViTPatchEmbeddings / CLIPVisionEmbeddings / SiglipVisionEmbeddings: nn.Conv2d(C, D,
    kernel_size=p, stride=p), flatten(2).transpose(1, 2): (B, P, D)."""
    weight = w.get(name + ".weight")
    b = w.get(name + ".bias") if bias else None
    return F.conv2d(pixels, weight, b, stride=PATCH).flatten(2).transpose(1, 2)


def interpolate_patch_positions(patch_pos, height, width):
    """interpolate_pos_encoding's resize of the (g*g, D) patch positions to
    (H/p * W/p, D): reshape (1, g, g, D), permute to (1, D, g, g),
    nn.functional.interpolate(size=(H/p, W/p), mode="bicubic", align_corners=False),
    permute back, view (1, -1, D)."""
    g = int(math.sqrt(patch_pos.shape[0]))
    x = patch_pos.reshape(1, g, g, D).permute(0, 3, 1, 2)
    x = F.interpolate(x, size=(height // PATCH, width // PATCH), mode="bicubic",
                      align_corners=False)
    return x.permute(0, 2, 3, 1).reshape(-1, D)


def positions_for(table, has_class, height, width):
    """The position rows for an H x W image: the table itself at the trained size,
    else its class row (kept) and its patch rows interpolated."""
    if (height, width) == (IMAGE, IMAGE):
        return table
    cls, patches = (table[:1], table[1:]) if has_class else (table[:0], table)
    return torch.cat([cls, interpolate_patch_positions(patches, height, width)], dim=0)


def vit_embeddings(w, pfx, pixels):
    """ViTEmbeddings.forward: cat(cls_token, patches) + positions (interpolated)."""
    B, _, H, W = pixels.shape
    patches = patch_embed(w, pfx + "embeddings.patch_embeddings.projection", pixels, True)
    cls = w.get(pfx + "embeddings.cls_token").expand(B, -1, -1)
    x = torch.cat([cls, patches], dim=1)
    return x + positions_for(w.get(pfx + "embeddings.position_embeddings")[0], True, H, W)


def clip_embeddings(w, pfx, pixels):
    """CLIPVisionEmbeddings.forward: cat(class_embedding, patches) + positions."""
    B, _, H, W = pixels.shape
    patches = patch_embed(w, pfx + "embeddings.patch_embedding", pixels, False)
    cls = w.get(pfx + "embeddings.class_embedding").expand(B, 1, -1)
    x = torch.cat([cls, patches], dim=1)
    return x + positions_for(w.get(pfx + "embeddings.position_embedding.weight"), True, H, W)


def siglip_embeddings(w, pfx, pixels):
    """SiglipVisionEmbeddings.forward: patches + positions (no class token)."""
    _, _, H, W = pixels.shape
    patches = patch_embed(w, pfx + "embeddings.patch_embedding", pixels, True)
    return patches + positions_for(w.get(pfx + "embeddings.position_embedding.weight"), False,
                                   H, W)


def attention(w, p, names, x):
    """Eager self-attention (ViTSelfAttention / CLIPAttention / SiglipAttention) and its
    output projection."""
    B, T, _ = x.shape
    dk = D // HEADS

    def heads(t):
        return t.view(B, T, HEADS, dk).transpose(1, 2)
    q, k, v = (heads(linear(w, p + names[n], x)) for n in "qkv")
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
    ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
    return linear(w, p + names["o"], ctx)


def encoder_layer(w, p, names, x, act, eps):
    """The pre-norm layer: x + attn(LN1(x)), then x + fc2(act(fc1(LN2(x))))."""
    x = x + attention(w, p, names, layer_norm(w, p + names["ln1"], x, eps))
    h = activation(act, linear(w, p + names["fc1"], layer_norm(w, p + names["ln2"], x, eps)))
    return x + linear(w, p + names["fc2"], h)


def encoder(w, prefix, names, x, act, eps):
    for l in range(LAYERS):
        x = encoder_layer(w, f"{prefix}{l}.", names, x, act, eps)
    return x


def vit_forward(w, pfx, pixels, labels):
    eps = 1e-12
    x = encoder(w, pfx + "encoder.layer.", VIT_LAYER, vit_embeddings(w, pfx, pixels), "gelu", eps)
    h = layer_norm(w, pfx + "layernorm", x, eps)
    out = {"last_hidden_state": h}
    if labels:
        out["logits"] = linear(w, "classifier", h[:, 0, :])
    else:
        out["pooled_output"] = torch.tanh(linear(w, pfx + "pooler.dense", h[:, 0, :]))
    return out


def clip_forward(w, pixels):
    eps, pfx = 1e-5, "vision_model."
    x = layer_norm(w, pfx + "pre_layrnorm", clip_embeddings(w, pfx, pixels), eps)
    h = encoder(w, pfx + "encoder.layers.", CLIP_LAYER, x, "quick_gelu", eps)
    pooled = layer_norm(w, pfx + "post_layernorm", h[:, 0, :], eps)
    return {"last_hidden_state": h, "pooled_output": pooled,
            "image_embeds": linear(w, "visual_projection", pooled, bias=False)}


def siglip_head(w, pfx, h, eps):
    """SiglipMultiheadAttentionPoolingHead.forward."""
    mha = torch.nn.MultiheadAttention(D, HEADS, batch_first=True)
    mha.in_proj_weight.data = w.get(pfx + "attention.in_proj_weight")
    mha.in_proj_bias.data = w.get(pfx + "attention.in_proj_bias")
    mha.out_proj.weight.data = w.get(pfx + "attention.out_proj.weight")
    mha.out_proj.bias.data = w.get(pfx + "attention.out_proj.bias")
    probe = w.get(pfx + "probe").repeat(h.shape[0], 1, 1)
    with torch.no_grad():
        x = mha(probe, h, h)[0]
    residual = x
    x = layer_norm(w, pfx + "layernorm", x, eps)
    x = linear(w, pfx + "mlp.fc2", activation("gelu_pytorch_tanh", linear(w, pfx + "mlp.fc1", x)))
    return (residual + x)[:, 0]


def siglip_forward(w, pixels):
    eps, pfx = 1e-6, "vision_model."  # SiglipVisionConfig's layer_norm_eps
    x = encoder(w, pfx + "encoder.layers.", CLIP_LAYER, siglip_embeddings(w, pfx, pixels),
                "gelu_pytorch_tanh", eps)
    h = layer_norm(w, pfx + "post_layernorm", x, eps)
    return {"last_hidden_state": h, "pooled_output": siglip_head(w, pfx + "head.", h, eps)}


# ---- folders ---------------------------------------------------------------------------

def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def folder(*parts):
    d = os.path.join(OUT, *parts)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def pixels_of(size):
    H, W = size
    rng = np.random.default_rng(1000 + H * 100 + W)
    return rng.uniform(-1.0, 1.0, (BATCH, CHANNELS, H, W)).astype(np.float32)


def expected(d, forward):
    cases = {}
    for size in SIZES:
        px = torch.from_numpy(pixels_of(size).astype(np.float64))
        out = forward(px)
        cases[f"{size[0]}x{size[1]}"] = {k: [float(v) for v in t.reshape(-1)]
                                         for k, t in out.items()}
    dump(os.path.join(d, "expected.json"), cases)


VIT_CONFIG = {"attention_probs_dropout_prob": 0.0, "encoder_stride": PATCH, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.0, "hidden_size": D, "image_size": IMAGE,
              "initializer_range": 0.02, "intermediate_size": FF, "layer_norm_eps": 1e-12,
              "model_type": "vit", "num_attention_heads": HEADS, "num_channels": CHANNELS,
              "num_hidden_layers": LAYERS, "patch_size": PATCH, "qkv_bias": True,
              "torch_dtype": "float32", "transformers_version": "4.46.0"}
LABELS = ["tabby cat", "golden retriever", "teapot"]


def vit_weights(seed, pfx, qkv_bias, labels, pooler):
    w = Weights(seed)
    grid = IMAGE // PATCH
    w.add(pfx + "embeddings.cls_token", (1, 1, D), "embed")
    w.add(pfx + "embeddings.position_embeddings", (1, grid * grid + 1, D), "embed")
    w.add(pfx + "embeddings.patch_embeddings.projection.weight", (D, CHANNELS, PATCH, PATCH),
          "linear")
    w.add(pfx + "embeddings.patch_embeddings.projection.bias", (D,), "bias")
    add_layers(w, pfx + "encoder.layer.", VIT_LAYER, qkv_bias)
    w.norm(pfx + "layernorm")
    if pooler:
        w.linear(pfx + "pooler.dense", D, D)
    if labels:
        w.linear("classifier", len(labels), D)
    return w


def write_vit_classifier():
    d = folder("vit_classifier")
    w = vit_weights(1, "vit.", True, LABELS, False)
    w.save(d)
    dump(os.path.join(d, "config.json"), dict(
        VIT_CONFIG, architectures=["ViTForImageClassification"],
        id2label={str(i): l for i, l in enumerate(LABELS)},
        label2id={l: i for i, l in enumerate(LABELS)}))
    expected(d, lambda px: vit_forward(w, "vit.", px, LABELS))


def write_vit_model():
    d = folder("vit_model")
    w = vit_weights(2, "", False, None, True)
    w.save(d)
    dump(os.path.join(d, "config.json"), dict(VIT_CONFIG, architectures=["ViTModel"],
                                              qkv_bias=False))
    expected(d, lambda px: vit_forward(w, "", px, None))


PROJECTION = 24
TEXT = {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
        "num_hidden_layers": 1, "vocab_size": 40, "max_position_embeddings": 12}


def clip_weights(seed):
    w = Weights(seed)
    pfx, grid = "vision_model.", IMAGE // PATCH
    w.add(pfx + "embeddings.class_embedding", (D,), "embed")
    w.add(pfx + "embeddings.patch_embedding.weight", (D, CHANNELS, PATCH, PATCH), "linear")
    w.add(pfx + "embeddings.position_embedding.weight", (grid * grid + 1, D), "embed")
    w.norm(pfx + "pre_layrnorm")
    add_layers(w, pfx + "encoder.layers.", CLIP_LAYER)
    w.norm(pfx + "post_layernorm")
    w.linear("visual_projection", PROJECTION, D, bias=False)
    # the text tower (a later task): present as CLIPModel saves it, not read here
    t, Dt = "text_model.", TEXT["hidden_size"]
    w.add(t + "embeddings.token_embedding.weight", (TEXT["vocab_size"], Dt), "embed")
    w.add(t + "embeddings.position_embedding.weight", (TEXT["max_position_embeddings"], Dt),
          "embed")
    w.linear(t + "encoder.layers.0.self_attn.q_proj", Dt, Dt)
    w.norm(t + "final_layer_norm", Dt)
    w.linear("text_projection", PROJECTION, Dt, bias=False)
    w.tensors["logit_scale"] = np.array(2.6592, dtype=np.float32)
    return w


def clip_config():
    vision = {"attention_dropout": 0.0, "dropout": 0.0, "hidden_act": "quick_gelu",
              "hidden_size": D, "image_size": IMAGE, "initializer_factor": 1.0,
              "initializer_range": 0.02, "intermediate_size": FF, "layer_norm_eps": 1e-05,
              "model_type": "clip_vision_model", "num_attention_heads": HEADS,
              "num_channels": CHANNELS, "num_hidden_layers": LAYERS, "patch_size": PATCH,
              "projection_dim": PROJECTION}
    text = dict(TEXT, hidden_act="quick_gelu", layer_norm_eps=1e-05, model_type="clip_text_model",
                bos_token_id=0, eos_token_id=2, pad_token_id=1, projection_dim=PROJECTION)
    return {"architectures": ["CLIPModel"], "initializer_factor": 1.0,
            "logit_scale_init_value": 2.6592, "model_type": "clip", "projection_dim": PROJECTION,
            "text_config": text, "torch_dtype": "float32", "transformers_version": "4.46.0",
            "vision_config": vision}


def write_clip():
    d = folder("clip")
    w = clip_weights(3)
    w.save(d)
    dump(os.path.join(d, "config.json"), clip_config())
    expected(d, lambda px: clip_forward(w, px))


def write_st_clip():
    d = folder("st_clip")
    dump(os.path.join(d, "modules.json"), [{"idx": 0, "name": "0", "path": "0_CLIPModel",
                                            "type": "sentence_transformers.models.CLIPModel"}])
    dump(os.path.join(d, "config_sentence_transformers.json"),
         {"__version__": {"sentence_transformers": "2.0.0", "transformers": "4.7.0",
                          "pytorch": "1.9.0+cu102"}})
    inner = os.path.join(d, "0_CLIPModel")
    os.makedirs(inner)
    w = clip_weights(4)
    w.save(inner)
    dump(os.path.join(inner, "config.json"), clip_config())
    expected(d, lambda px: clip_forward(w, px))


def siglip_weights(seed):
    """A SiglipModel's vision tower with its head (and a stub of a text tower, which
    the vision loader leaves alone)."""
    w = Weights(seed)
    pfx, grid = "vision_model.", IMAGE // PATCH
    w.add(pfx + "embeddings.patch_embedding.weight", (D, CHANNELS, PATCH, PATCH), "linear")
    w.add(pfx + "embeddings.patch_embedding.bias", (D,), "bias")
    w.add(pfx + "embeddings.position_embedding.weight", (grid * grid, D), "embed")
    add_layers(w, pfx + "encoder.layers.", CLIP_LAYER)
    w.norm(pfx + "post_layernorm")
    h = pfx + "head."
    w.add(h + "probe", (1, 1, D), "embed")
    w.add(h + "attention.in_proj_weight", (3 * D, D), "linear")
    w.add(h + "attention.in_proj_bias", (3 * D,), "bias")
    w.linear(h + "attention.out_proj", D, D)
    w.norm(h + "layernorm")
    w.linear(h + "mlp.fc1", FF, D)
    w.linear(h + "mlp.fc2", D, FF)
    w.add("text_model.embeddings.token_embedding.weight", (40, 16), "embed")
    w.tensors["logit_scale"] = np.array([2.3026], dtype=np.float32)
    w.tensors["logit_bias"] = np.array([-10.0], dtype=np.float32)
    return w


def write_siglip():
    d = folder("siglip")
    w = siglip_weights(5)
    w.save(d)
    dump(os.path.join(d, "config.json"), {
        "architectures": ["SiglipModel"], "initializer_factor": 1.0, "model_type": "siglip",
        "text_config": {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
                        "num_hidden_layers": 1, "vocab_size": 40,
                        "model_type": "siglip_text_model"},
        "torch_dtype": "float32", "transformers_version": "4.46.0",
        "vision_config": {"hidden_size": D, "image_size": IMAGE, "intermediate_size": FF,
                          "model_type": "siglip_vision_model", "num_attention_heads": HEADS,
                          "num_hidden_layers": LAYERS, "patch_size": PATCH}})
    expected(d, lambda px: siglip_forward(w, px))


def write_malformed():
    """Folders to refuse: a tensor missing, one misshapen, one left over, an
    unsupported hidden_act and model_type (test_vision.c has each message)."""
    config = clip_config()
    cases = {
        "missing": lambda w: w.tensors.pop("vision_model.post_layernorm.bias"),
        "misshapen": lambda w: w.tensors.__setitem__(
            "vision_model.encoder.layers.1.mlp.fc1.weight", np.zeros((FF, D - 1), np.float32)),
        "extra": lambda w: w.tensors.__setitem__(
            "vision_model.encoder.layers.2.mlp.fc1.weight", np.zeros((FF, D), np.float32)),
    }
    for name, spoil in cases.items():
        d = folder("malformed", name)
        w = clip_weights(6)
        spoil(w)
        w.save(d)
        dump(os.path.join(d, "config.json"), config)
    d = folder("malformed", "hidden_act")
    clip_weights(6).save(d)
    dump(os.path.join(d, "config.json"),
         dict(config, vision_config=dict(config["vision_config"], hidden_act="gelu_fast")))
    d = folder("malformed", "model_type")
    clip_weights(6).save(d)
    dump(os.path.join(d, "config.json"), dict(config, model_type="blip"))


def main():
    os.makedirs(OUT, exist_ok=True)
    for size in SIZES:
        np.save(os.path.join(OUT, f"pixels_{size[0]}x{size[1]}.npy"), pixels_of(size))
    write_vit_classifier()
    write_vit_model()
    write_clip()
    write_st_clip()
    write_siglip()
    write_malformed()


if __name__ == "__main__":
    main()
