#!/usr/bin/python3
"""Decode + preprocess time per image, by format and size: real photographs
from scikit-image's data folder (astronaut 512 x 512, motorcycle_left 741 x
500, retina 1411 x 1411), each saved by PIL as JPEG (quality 90), PNG and
lossy WebP (quality 80) into --dir, then timed by bench/image-bench (its
decode, CLIP 224 preprocess and both, each timed for --min-time seconds).
Prints one markdown row an image: each step's median ms, then its best in ( ).

    /usr/bin/python3 bench/image_decode.py --build build [--min-time 0.5]
"""
import argparse
import os
import re
import subprocess

from PIL import Image

SKIMAGE_DATA = "/usr/lib/python3/dist-packages/skimage/data"
PHOTOS = ("astronaut.png", "motorcycle_left.png", "retina.jpg")
FORMATS = (("jpg", "JPEG", {"quality": 90}), ("png", "PNG", {}),
           ("webp", "WEBP", {"quality": 80}))
STEP = re.compile(r"^\s+(decode\+preprocess|decode|preprocess)\s+median\s+([\d.]+) ms\s+"
                  r"best\s+([\d.]+) ms")


def write_images(folder):
    """Each photo in each format: [(path, photo, width, height, format)]."""
    os.makedirs(folder, exist_ok=True)
    out = []
    for photo in PHOTOS:
        image = Image.open(os.path.join(SKIMAGE_DATA, photo)).convert("RGB")
        name = photo.rsplit(".", 1)[0]
        for ext, pil_format, options in FORMATS:
            path = os.path.join(folder, f"{name}.{ext}")
            image.save(path, pil_format, **options)
            out.append((path, name, image.width, image.height, pil_format))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="meson build dir with bench/image-bench")
    ap.add_argument("--min-time", default="0.5", help="seconds each step is timed")
    ap.add_argument("--dir", default="/tmp/tfenc_image_decode", help="where the files go")
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench", "image-bench")
    print("| photo | size | format | KiB | decode ms | preprocess ms | decode + preprocess ms |")
    print("|---|---|---|---|---|---|---|")
    for path, name, width, height, pil_format in write_images(args.dir):
        run = subprocess.run([bench, path, "--min-time", args.min_time], capture_output=True,
                             text=True, check=True)
        ms = {m.group(1): f"{float(m.group(2)):.1f} ({float(m.group(3)):.1f})"
              for m in map(STEP.match, run.stdout.splitlines()) if m}
        print(f"| {name} | {width} x {height} | {pil_format} | {os.path.getsize(path) / 1024:.0f} "
              f"| {ms['decode']} | {ms['preprocess']} | {ms['decode+preprocess']} |", flush=True)


if __name__ == "__main__":
    main()
