#!/usr/bin/python3
"""Writes tests/data/clip_text/: whole CLIP and SigLIP model folders (both towers in one
model.safetensors, config.json with text_config and vision_config, a tokenizer.json and
a preprocessor_config.json) with small random weights, and expected.json in each: the
token ids, the text vectors and the zero-shot probabilities computed in float64 by the
references below from exactly the float32 weights stored.

  clip      openai/clip-vit-base-patch32: CLIPModel, text_config's eos_token_id 2 (the
            legacy pooling at the largest id), tokenizer_config.json's pad_token
            <|endoftext|> (padding with the end-of-text id, as that folder pads)
  st_clip   sentence-transformers/clip-ViT-B-32: modules.json with a
            sentence_transformers.models.CLIPModel module in 0_CLIPModel/, whose
            text_config names the end-of-text id (the pooling at its first position)
  siglip    google/siglip-base-patch16-224: SiglipModel, text_config giving only sizes
            (hidden_act and layer_norm_eps SiglipTextConfig's defaults), texts padded
            to max_length 64 with </s>, every position attended

The vision towers are gen_vision.py's (clip_weights, siglip_weights, clip_forward,
siglip_forward) with its pixel tensor pixels_32x32 (stored here in expected.json as
pixel_values [2, 3, 32, 32]), and gen_image_pipeline.py's two image files preprocessed
as each folder's Hub processor does (its preprocessor_config.json, written here). The
tokenizers are tiny: a byte-level BPE laid out as
transformers' convert_slow_tokenizer.py CLIPConverter writes it, and a Unigram laid out
as a SentencePiece model's tokenizer.json (Metaspace, </s> appended), each word of the
test texts a token.

transformers cannot be installed here, so each reference follows the upstream source it
names (transformers/models/...):
  clip_text_forward    clip/modeling_clip.py CLIPTextTransformer.forward: CLIPTextEmbeddings
                       (token_embedding + position_embedding of position_ids 0..T-1),
                       _create_4d_causal_attention_mask + _prepare_4d_attention_mask (the
                       padding), CLIPEncoder (CLIPEncoderLayer: layer_norm1, CLIPAttention
                       eager, residual, layer_norm2, CLIPMLP), final_layer_norm, pooled_output
                       at input_ids.argmax(-1) when eos_token_id == 2, else at
                       (input_ids == eos_token_id).int().argmax(-1); CLIPModel.
                       get_text_features (text_projection, no bias)
  siglip_text_forward  siglip/modeling_siglip.py SiglipTextTransformer.forward:
                       SiglipTextEmbeddings, SiglipEncoder without a mask (the processor
                       gives no attention_mask), final_layer_norm, pooled_output =
                       last_hidden_state[:, -1, :], head
  zero_shot            CLIPModel.forward (image_embeds and text_embeds each / their L2 norm,
                       logits_per_text = text_embeds @ image_embeds.t() * logit_scale.exp(),
                       logits_per_image its transpose), SiglipModel.forward (+ logit_bias);
                       pipelines/zero_shot_image_classification.py postprocess: softmax over
                       the labels, sigmoid for siglip

    /usr/bin/python3 tests/data/gen_vision.py     (first: its constants and references)
    /usr/bin/python3 tests/data/gen_clip_text.py"""
import math
import os
import shutil

import numpy as np
import torch

import gen_image_pipeline
import gen_images
import gen_vision
from gen_vision import activation, dump, layer_norm, linear

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "clip_text")

TEXTS = ["a photo of a cat", "a red car", "a dog"]
LABELS = ["a photo of a cat", "a photo of a dog", "a photo of a red car"]
WORDS = ["a", "photo", "of", "cat", "dog", "red", "car"]
LAYERS = 2
CLIP_TEXT = {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
             "num_hidden_layers": LAYERS, "max_position_embeddings": 16}
SIGLIP_TEXT = {"hidden_size": gen_vision.D, "intermediate_size": 64, "num_attention_heads": 2,
               "num_hidden_layers": LAYERS, "max_position_embeddings": 64}
SIGLIP_LENGTH = 64  # ZeroShotImageClassificationPipeline's max_length for siglip


# ---- tokenizers ------------------------------------------------------------------------

class ClipBpe:
    """A byte-level BPE over the test words: a and a</w> for each letter, each word
    built by merges left to right, then <|startoftext|> and <|endoftext|> as the
    last ids (as in openai's 49406 and 49407)."""

    def __init__(self):
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.vocab = {}
        for c in letters:
            self.vocab[c] = len(self.vocab)
        for c in letters:
            self.vocab[c + "</w>"] = len(self.vocab)
        self.merges = []
        for word in WORDS:
            symbols = self.symbols(word)
            while len(symbols) > 1:
                pair = (symbols[0], symbols[1])
                if pair not in self.merges:
                    self.merges.append(pair)
                    self.vocab.setdefault(pair[0] + pair[1], len(self.vocab))
                symbols = [pair[0] + pair[1]] + symbols[2:]
        self.bos = len(self.vocab)
        self.vocab["<|startoftext|>"] = self.bos
        self.eos = len(self.vocab)
        self.vocab["<|endoftext|>"] = self.eos

    @staticmethod
    def symbols(word):
        return list(word[:-1]) + [word[-1] + "</w>"]

    def bpe(self, word):
        """tokenizers' BPE.merge_word: the lowest-ranked pair merged until none is left."""
        symbols = self.symbols(word)
        ranks = {m: i for i, m in enumerate(self.merges)}
        while True:
            pairs = [(ranks.get((a, b), math.inf), i)
                     for i, (a, b) in enumerate(zip(symbols, symbols[1:]))]
            best = min(pairs, default=(math.inf, 0))
            if best[0] == math.inf:
                return symbols
            i = best[1]
            symbols = symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2:]

    def encode(self, text):
        ids = [self.vocab[t] for w in text.lower().split() for t in self.bpe(w)]
        return [self.bos] + ids + [self.eos]

    def tokenizer_json(self):
        special = [{"id": i, "content": c, "single_word": False, "lstrip": False,
                    "rstrip": False, "normalized": True, "special": True}
                   for c, i in (("<|startoftext|>", self.bos), ("<|endoftext|>", self.eos))]
        pattern = ("<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|"
                   "[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+")
        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
                {"type": "Lowercase"}]},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed",
                 "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False}]},
            "post_processor": {"type": "RobertaProcessing", "sep": ["<|endoftext|>", self.eos],
                               "cls": ["<|startoftext|>", self.bos], "trim_offsets": False,
                               "add_prefix_space": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<|endoftext|>",
                      "continuing_subword_prefix": "", "end_of_word_suffix": "</w>",
                      "fuse_unk": False, "byte_fallback": False, "vocab": self.vocab,
                      "merges": [f"{a} {b}" for a, b in self.merges]}}

    def config(self, max_positions):
        return {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>",
                "pad_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                "model_max_length": max_positions, "tokenizer_class": "CLIPTokenizer"}


class SiglipUnigram:
    """A Unigram over the test words ("▁word" pieces scoring above the letters),
    <pad> 0, </s> 1 (SigLIP's pad and end-of-text), <unk> 2."""

    def __init__(self):
        self.pieces = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0], ["\u2581", -3.0]]
        self.pieces += [["\u2581" + w, -1.0] for w in WORDS]
        self.pieces += [[c, -5.0] for c in "abcdefghijklmnopqrstuvwxyz"]
        self.ids = {p: i for i, (p, _) in enumerate(self.pieces)}
        self.eos = self.pad = 1

    def encode(self, text):
        ids = [self.ids["\u2581" + w] for w in text.split()] + [self.eos]
        return ids + [self.pad] * (SIGLIP_LENGTH - len(ids))

    def tokenizer_json(self):
        special = [{"id": i, "content": c, "single_word": False, "lstrip": False,
                    "rstrip": False, "normalized": False, "special": True}
                   for i, c in enumerate(["<pad>", "</s>", "<unk>"])]
        eos = {"SpecialToken": {"id": "</s>", "type_id": 0}}
        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
            "normalizer": None,
            "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                              "prepend_scheme": "always", "split": True},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"Sequence": {"id": "A", "type_id": 0}}, eos],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}, eos,
                         {"Sequence": {"id": "B", "type_id": 0}}, eos],
                "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
            "decoder": {"type": "Metaspace", "replacement": "\u2581",
                        "prepend_scheme": "always", "split": True},
            "model": {"type": "Unigram", "unk_id": 2, "vocab": self.pieces,
                      "byte_fallback": False}}

    def config(self):
        return {"eos_token": "</s>", "pad_token": "</s>", "unk_token": "<unk>",
                "model_max_length": SIGLIP_LENGTH, "tokenizer_class": "SiglipTokenizer"}


# ---- the text towers -------------------------------------------------------------------

def add_text_tower(w, cfg, vocab, family, projection):
    """CLIPTextTransformer's / SiglipTextTransformer's tensors under text_model., and
    CLIPModel's text_projection or SigLIP's head."""
    t, Dt, Ft = "text_model.", cfg["hidden_size"], cfg["intermediate_size"]
    w.add(t + "embeddings.token_embedding.weight", (vocab, Dt), "embed")
    w.add(t + "embeddings.position_embedding.weight", (cfg["max_position_embeddings"], Dt),
          "embed")
    for l in range(LAYERS):
        p = f"{t}encoder.layers.{l}."
        for part in "qkv":
            w.linear(p + gen_vision.CLIP_LAYER[part], Dt, Dt)
        w.linear(p + gen_vision.CLIP_LAYER["o"], Dt, Dt)
        w.norm(p + "layer_norm1", Dt)
        w.linear(p + "mlp.fc1", Ft, Dt)
        w.linear(p + "mlp.fc2", Dt, Ft)
        w.norm(p + "layer_norm2", Dt)
    w.norm(t + "final_layer_norm", Dt)
    if family == "clip":
        w.linear("text_projection", projection, Dt, bias=False)
    else:
        w.linear(t + "head", projection, Dt)


def attention(w, p, x, heads, mask):
    """CLIPAttention / SiglipAttention, eager: softmax(q k^T / sqrt(dk) + mask) v, out_proj."""
    B, T, Dt = x.shape
    dk = Dt // heads

    def split(t):
        return t.view(B, T, heads, dk).transpose(1, 2)
    q, k, v = (split(linear(w, p + gen_vision.CLIP_LAYER[n], x)) for n in "qkv")
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
    if mask is not None:
        scores = scores + mask
    ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, Dt)
    return linear(w, p + gen_vision.CLIP_LAYER["o"], ctx)


def text_encoder(w, cfg, x, mask, act, eps):
    """CLIPEncoder / SiglipEncoder: the pre-norm layers."""
    for l in range(LAYERS):
        p = f"text_model.encoder.layers.{l}."
        h = layer_norm(w, p + "layer_norm1", x, eps)
        x = x + attention(w, p, h, cfg["num_attention_heads"], mask)
        h = activation(act, linear(w, p + "mlp.fc1", layer_norm(w, p + "layer_norm2", x, eps)))
        x = x + linear(w, p + "mlp.fc2", h)
    return x


def embeddings(w, ids):
    """CLIPTextEmbeddings / SiglipTextEmbeddings: token + position (0..T-1)."""
    T = ids.shape[1]
    return (w.get("text_model.embeddings.token_embedding.weight")[ids] +
            w.get("text_model.embeddings.position_embedding.weight")[:T])


def clip_text_forward(w, cfg, ids, attention_mask, eos_token_id):
    eps, B, T = 1e-5, ids.shape[0], ids.shape[1]
    low = torch.finfo(torch.float64).min
    causal = torch.triu(torch.full((T, T), low), diagonal=1)[None, None]
    padding = (1.0 - attention_mask[:, None, None, :].double()) * low
    h = text_encoder(w, cfg, embeddings(w, ids), causal + padding, "quick_gelu", eps)
    h = layer_norm(w, "text_model.final_layer_norm", h, eps)
    if eos_token_id == 2:
        at = ids.to(torch.int).argmax(dim=-1)
    else:
        at = (ids.to(torch.int) == eos_token_id).int().argmax(dim=-1)
    pooled = h[torch.arange(B), at]
    return linear(w, "text_projection", pooled, bias=False)


def siglip_text_forward(w, cfg, ids):
    eps = 1e-6  # SiglipTextConfig's layer_norm_eps
    h = text_encoder(w, cfg, embeddings(w, ids), None, "gelu_pytorch_tanh", eps)
    h = layer_norm(w, "text_model.final_layer_norm", h, eps)
    return linear(w, "text_model.head", h[:, -1, :])


def zero_shot(w, image_embeds, text_embeds, siglip):
    image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
    text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
    logits_per_text = text_embeds @ image_embeds.t() * w.get("logit_scale").exp()
    if siglip:
        logits_per_text = logits_per_text + w.get("logit_bias")
    logits_per_image = logits_per_text.t()
    return torch.sigmoid(logits_per_image) if siglip else logits_per_image.softmax(dim=-1)


# ---- folders ---------------------------------------------------------------------------

def padded(rows, pad):
    """The rows right-padded to the longest with pad, and their attention mask."""
    T = max(len(r) for r in rows)
    ids = torch.tensor([r + [pad] * (T - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (T - len(r)) for r in rows])
    return ids, mask


def flat(t):
    return [float(v) for v in t.reshape(-1)]


def write_clip(name, module, eos_is_named):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    inner = os.path.join(d, module) if module else d
    os.makedirs(inner)
    if module:
        dump(os.path.join(d, "modules.json"),
             [{"idx": 0, "name": "0", "path": module,
               "type": "sentence_transformers.models.CLIPModel"}])
    tok = ClipBpe()
    w = gen_vision.clip_weights(7 if module else 8)
    for k in [k for k in w.tensors if k.startswith("text_") or k == "logit_scale"]:
        del w.tensors[k]
    add_text_tower(w, CLIP_TEXT, len(tok.vocab), "clip", gen_vision.PROJECTION)
    w.tensors["logit_scale"] = np.array(2.6592, dtype=np.float32)
    w.save(inner)
    eos_token_id = tok.eos if eos_is_named else 2
    config = gen_vision.clip_config()
    config["text_config"] = dict(config["text_config"], **CLIP_TEXT, vocab_size=len(tok.vocab),
                                 bos_token_id=tok.bos if eos_is_named else 0,
                                 eos_token_id=eos_token_id)
    dump(os.path.join(inner, "config.json"), config)
    dump(os.path.join(inner, "tokenizer.json"), tok.tokenizer_json())
    dump(os.path.join(inner, "tokenizer_config.json"),
         tok.config(CLIP_TEXT["max_position_embeddings"]))

    def text_embeds(texts):
        ids, mask = padded([tok.encode(t) for t in texts], tok.eos)
        return clip_text_forward(w, CLIP_TEXT, ids, mask, eos_token_id)
    processor = gen_image_pipeline.ST_CLIP if module else gen_image_pipeline.CLIP
    write_expected(d, tok, TEXTS, text_embeds(TEXTS), lambda px: zero_shot(
        w, gen_vision.clip_forward(w, px)["image_embeds"], text_embeds(LABELS), False),
        processor)


def write_siglip():
    d = os.path.join(OUT, "siglip")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    tok = SiglipUnigram()
    w = gen_vision.siglip_weights(9)
    for k in [k for k in w.tensors if k.startswith("text_") or k.startswith("logit_")]:
        del w.tensors[k]
    add_text_tower(w, SIGLIP_TEXT, len(tok.pieces), "siglip", SIGLIP_TEXT["hidden_size"])
    w.tensors["logit_scale"] = np.array([2.3026], dtype=np.float32)
    w.tensors["logit_bias"] = np.array([1.5], dtype=np.float32)
    w.save(d)
    dump(os.path.join(d, "config.json"), {
        "architectures": ["SiglipModel"], "initializer_factor": 1.0, "model_type": "siglip",
        "text_config": dict(SIGLIP_TEXT, vocab_size=len(tok.pieces),
                            model_type="siglip_text_model"),
        "torch_dtype": "float32", "transformers_version": "4.46.0",
        "vision_config": {"hidden_size": gen_vision.D, "image_size": gen_vision.IMAGE,
                          "intermediate_size": gen_vision.FF,
                          "model_type": "siglip_vision_model",
                          "num_attention_heads": gen_vision.HEADS,
                          "num_hidden_layers": gen_vision.LAYERS,
                          "patch_size": gen_vision.PATCH}})
    dump(os.path.join(d, "tokenizer.json"), tok.tokenizer_json())
    dump(os.path.join(d, "tokenizer_config.json"), tok.config())

    def text_embeds(texts):
        return siglip_text_forward(w, SIGLIP_TEXT, torch.tensor([tok.encode(t) for t in texts]))
    write_expected(d, tok, TEXTS, text_embeds(TEXTS), lambda px: zero_shot(
        w, gen_vision.siglip_forward(w, px)["pooled_output"], text_embeds(LABELS), True),
        gen_image_pipeline.SIGLIP)


def write_expected(d, tok, texts, text_embeds, probs_of, processor):
    """expected.json, and the processor's preprocessor_config.json (beside config.json):
    probs_of(pixel_values) the zero-shot probabilities of LABELS, for the generator's
    pixel_values and for gen_image_pipeline.py's two image files preprocessed
    (gen_images.preprocess) as the processor says."""
    inner = os.path.dirname(glob_one(d, "config.json"))
    dump(os.path.join(inner, "preprocessor_config.json"), processor)
    pixels = gen_vision.pixels_of((32, 32))
    files = np.stack([gen_images.preprocess(gen_image_pipeline.decoded(f), processor)
                      for f in gen_image_pipeline.FILES])
    dump(os.path.join(d, "expected.json"), {
        "texts": texts, "ids": [tok.encode(t) for t in texts],
        "text_embeds": flat(text_embeds), "labels": LABELS,
        "pixel_values": flat(torch.from_numpy(pixels)),
        "probs": flat(probs_of(torch.from_numpy(pixels.astype(np.float64)))),
        "files": gen_image_pipeline.FILES,
        "probs_files": flat(probs_of(torch.from_numpy(files.astype(np.float64))))})


def glob_one(d, name):
    """The one path of name under d (its top folder or a module folder)."""
    for root, _, names in sorted(os.walk(d)):
        if name in names:
            return os.path.join(root, name)
    raise FileNotFoundError(os.path.join(d, name))


def main():
    os.makedirs(OUT, exist_ok=True)
    write_clip("clip", None, False)
    write_clip("st_clip", "0_CLIPModel", True)
    write_siglip()


if __name__ == "__main__":
    main()
