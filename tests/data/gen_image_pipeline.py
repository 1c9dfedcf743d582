#!/usr/bin/python3
"""Writes tests/data/image_pipeline/: the vision folders of tests/data/vision/
(gen_vision.py; config.json and model.safetensors linked, not copied) each
with the preprocessor_config.json its Hub original ships (sizes made 32, the
towers' image_size), and expected.json: what transformers computes end to end
from two image files of tests/data/images/files/ (gen_images.py), in float64
from the float32 weights stored:
  decode + preprocess  gen_images.py's preprocess(): image_utils.load_image
                       (PIL open, exif_transpose, convert("RGB")), then the
                       processor's resize, center crop, rescale, normalize
  the tower            gen_vision.py's references: clip_forward (CLIPModel.
                       get_image_features: image_embeds), siglip_forward
                       (pooler_output), vit_forward (ViTModel's pooler_output;
                       ViTForImageClassification's logits)
  classifier scores    pipelines/image_classification.py
                       ImageClassificationPipeline.postprocess, function_to_apply
                       "default": softmax over the logits (several labels, no
                       problem_type)
The images are decoded the same in the C library (tests/test_image.c checks
the pixels), so the comparison covers the whole path.

    /usr/bin/python3 tests/data/gen_vision.py      (first: the folders)
    /usr/bin/python3 tests/data/gen_images.py      (first: the images)
    /usr/bin/python3 tests/data/gen_image_pipeline.py"""
import io
import json
import os
import shutil
import struct

import numpy as np
import torch
from PIL import Image, ImageOps

import gen_images
import gen_vision

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "image_pipeline")
VISION = os.path.join(HERE, "vision")
IMAGES = os.path.join(HERE, "images", "files")

FILES = ["photo_astronaut_200x160.jpg", "photo_coffee_150x100.webp"]
SIDE = gen_vision.IMAGE  # every tower's image_size

HALF = {"image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}
CLIP_NORM = {"image_mean": gen_images.CLIP_MEAN, "image_std": gen_images.CLIP_STD}
# openai/clip-vit-base-patch32 (legacy integer sizes, the FeatureExtractor name)
CLIP = dict(CLIP_NORM, crop_size=SIDE, do_center_crop=True, do_normalize=True, do_resize=True,
            feature_extractor_type="CLIPFeatureExtractor", resample=3, size=SIDE)
# sentence-transformers/clip-ViT-B-32's 0_CLIPModel/ (a newer processor's dicts)
ST_CLIP = dict(CLIP_NORM, crop_size={"height": SIDE, "width": SIDE}, do_center_crop=True,
               do_convert_rgb=True, do_normalize=True, do_rescale=True, do_resize=True,
               image_processor_type="CLIPImageProcessor", resample=3,
               rescale_factor=0.00392156862745098, size={"shortest_edge": SIDE})
# google/siglip-base-patch16-224
SIGLIP = dict(HALF, do_normalize=True, do_rescale=True, do_resize=True,
              image_processor_type="SiglipImageProcessor", processor_class="SiglipProcessor",
              resample=3, rescale_factor=0.00392156862745098,
              size={"height": SIDE, "width": SIDE})
# google/vit-base-patch16-224
VIT = dict(HALF, do_normalize=True, do_resize=True, feature_extractor_type="ViTFeatureExtractor",
           resample=2, size=SIDE)


class Stored:
    """The float32 tensors of a model.safetensors, as gen_vision.Weights gives them."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + n])
        self.tensors = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            assert info["dtype"] == "F32", name
            start, end = info["data_offsets"]
            raw = np.frombuffer(data[8 + n + start:8 + n + end], dtype="<f4")
            self.tensors[name] = raw.reshape(info["shape"])

    def get(self, name):
        return torch.from_numpy(self.tensors[name].astype(np.float64))


def softmax(logits):
    return torch.softmax(logits, dim=-1)


# folder -> (the module folder inside it, its processor, what the pipeline gives)
FOLDERS = {
    "clip": ("", CLIP, lambda w, px: gen_vision.clip_forward(w, px)["image_embeds"]),
    "st_clip": ("0_CLIPModel", ST_CLIP,
                lambda w, px: gen_vision.clip_forward(w, px)["image_embeds"]),
    "siglip": ("", SIGLIP, lambda w, px: gen_vision.siglip_forward(w, px)["pooled_output"]),
    "vit_model": ("", VIT, lambda w, px: gen_vision.vit_forward(w, "", px, None)["pooled_output"]),
    "vit_classifier": ("", VIT, lambda w, px: softmax(
        gen_vision.vit_forward(w, "vit.", px, gen_vision.LABELS)["logits"])),
}


def link_tree(src, dst):
    """dst/ with a relative symbolic link to every file of src/ (folders made)."""
    os.makedirs(dst)
    for name in sorted(os.listdir(src)):
        if name == "expected.json":
            continue
        if os.path.isdir(os.path.join(src, name)):
            link_tree(os.path.join(src, name), os.path.join(dst, name))
        else:
            os.symlink(os.path.relpath(os.path.join(src, name), dst), os.path.join(dst, name))


def decoded(name):
    with open(os.path.join(IMAGES, name), "rb") as f:
        return np.array(ImageOps.exif_transpose(Image.open(io.BytesIO(f.read()))).convert("RGB"))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for folder, (module, processor, forward) in FOLDERS.items():
        d = os.path.join(OUT, folder)
        link_tree(os.path.join(VISION, folder), d)
        with open(os.path.join(d, module, "preprocessor_config.json"), "w") as f:
            json.dump(processor, f, indent=2)
            f.write("\n")
        w = Stored(os.path.join(VISION, folder, module, "model.safetensors"))
        px = np.stack([gen_images.preprocess(decoded(name), processor) for name in FILES])
        out = forward(w, torch.from_numpy(px.astype(np.float64)))
        expected = {"files": FILES, "shape": list(out.shape),
                    "values": [float(v) for v in out.reshape(-1)]}
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
