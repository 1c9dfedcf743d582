#!/usr/bin/python3
"""Writes tests/data/images/: small images of every mode and odd sizes, three
photographs from skimage.data (downscaled), hostile files, preprocessor
configs laid out as the Hub's CLIP, SigLIP and ViT folders write them (with
small sizes, so the expected tensors stay small), and expected.json with
what PIL (Debian 12's python3-pil, Pillow 9.4) and numpy give, computed as
transformers computes it:
  decode     image_utils.load_image: PIL.Image.open, PIL.ImageOps.exif_transpose,
             .convert("RGB"); stored as <name>.rgb (uint8 [H, W, 3])
  resize     image_transforms.resize on a uint8 image: PIL Image.resize
             ((width, height), resample, reducing_gap=None); the size from
             get_resize_output_image_size (default_to_square=False) for
             {"shortest_edge"}, else {"height", "width"}
  center_crop image_transforms.center_crop (zero-padded where smaller)
  rescale    image_transforms.rescale: float64 * factor, then float32
  normalize  image_transforms.normalize: (x - mean) / std in float32
  layout     channels first, pixel_values [3, H, W]; stored as
             <image>.<config>.f32 (float32, little-endian)
The processors' preprocess() runs these in this order (image_processing_clip.py,
image_processing_siglip.py, image_processing_vit.py).
Hostile files carry the status and message the decoder must give.

    /usr/bin/python3 tests/data/gen_images.py"""
import io
import json
import math
import os
import shutil
import struct
import zlib

import numpy as np
import skimage.data
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "images")

# image_utils.py's OPENAI_CLIP_MEAN / OPENAI_CLIP_STD
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]

# preprocessor_config.json as the Hub's folders write them, sizes made small:
# openai/clip-vit-base-patch32 (the legacy integer size and crop_size),
# google/siglip-base-patch16-224, google/vit-base-patch16-224.
CONFIGS = {
    "clip": {"crop_size": 20, "do_center_crop": True, "do_normalize": True, "do_resize": True,
             "feature_extractor_type": "CLIPFeatureExtractor", "image_mean": CLIP_MEAN,
             "image_std": CLIP_STD, "resample": 3, "size": 24},
    # a crop larger than the resized image: center_crop pads with zeros
    "clip_pad": {"crop_size": {"height": 23, "width": 26}, "do_center_crop": True,
                 "do_convert_rgb": True, "do_normalize": True, "do_rescale": True,
                 "do_resize": True, "image_mean": CLIP_MEAN,
                 "image_processor_type": "CLIPImageProcessor", "image_std": CLIP_STD,
                 "resample": 3, "rescale_factor": 0.00392156862745098,
                 "size": {"shortest_edge": 18}},
    "siglip": {"do_normalize": True, "do_rescale": True, "do_resize": True,
               "image_mean": [0.5, 0.5, 0.5], "image_processor_type": "SiglipImageProcessor",
               "image_std": [0.5, 0.5, 0.5], "processor_class": "SiglipProcessor",
               "resample": 3, "rescale_factor": 0.00392156862745098,
               "size": {"height": 18, "width": 22}},
    "vit": {"do_normalize": True, "do_resize": True,
            "feature_extractor_type": "ViTFeatureExtractor", "image_mean": [0.5, 0.5, 0.5],
            "image_std": [0.5, 0.5, 0.5], "resample": 2, "size": 16},
    # PIL's other convolution filters, on a plain [height, width] size
    "vit_lanczos": {"image_processor_type": "ViTImageProcessor", "resample": 1,
                    "size": [15, 13], "image_mean": 0.45, "image_std": 0.25},
    "vit_box": {"image_processor_type": "ViTImageProcessor", "resample": 4,
                "size": [14, 21], "do_normalize": False},
    "vit_hamming": {"image_processor_type": "ViTImageProcessor", "resample": 5,
                    "size": [17, 12], "do_rescale": False},
}
# A photograph's larger CLIP path, rescale and normalise off so that the
# tensor is the resized and cropped uint8 image itself (stored as .rgb).
CLIP_112 = {"crop_size": 112, "do_center_crop": True, "do_normalize": False,
            "do_rescale": False, "feature_extractor_type": "CLIPFeatureExtractor",
            "resample": 3, "size": 128}


# ---- transformers' preprocessing, step by step --------------------------------

def get_resize_output_image_size(height, width, size):
    """image_transforms.get_resize_output_image_size, default_to_square=False."""
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = size, int(size * long / short)
    return (new_long, new_short) if width <= height else (new_short, new_long)


def size_dict(config, kind):
    """image_processing_utils.get_size_dict as each processor calls it."""
    size = config.get("size", 224)
    if isinstance(size, int):
        return {"shortest_edge": size} if kind == "clip" else {"height": size, "width": size}
    if isinstance(size, list):
        return {"height": size[0], "width": size[1]}
    return size


def crop_dict(config):
    crop = config.get("crop_size", 224)
    if isinstance(crop, int):
        return {"height": crop, "width": crop}
    return crop


def resize(rgb, height, width, resample):
    """image_transforms.resize on a uint8 image: PIL's resize."""
    return np.array(Image.fromarray(rgb).resize((width, height), resample=resample,
                                                reducing_gap=None))


def center_crop(image, crop_height, crop_width):
    """image_transforms.center_crop, channels last."""
    orig_height, orig_width = image.shape[:2]
    top = (orig_height - crop_height) // 2
    bottom = top + crop_height
    left = (orig_width - crop_width) // 2
    right = left + crop_width
    if top >= 0 and bottom <= orig_height and left >= 0 and right <= orig_width:
        return image[top:bottom, left:right]
    new_height = max(crop_height, orig_height)
    new_width = max(crop_width, orig_width)
    new_image = np.zeros_like(image, shape=(new_height, new_width) + image.shape[2:])
    top_pad = math.ceil((new_height - orig_height) / 2)
    bottom_pad = top_pad + orig_height
    left_pad = math.ceil((new_width - orig_width) / 2)
    right_pad = left_pad + orig_width
    new_image[top_pad:bottom_pad, left_pad:right_pad] = image
    top += top_pad
    bottom += top_pad
    left += left_pad
    right += left_pad
    return new_image[max(0, top):min(new_height, bottom), max(0, left):min(new_width, right)]


def rescale(image, scale):
    """image_transforms.rescale."""
    return (image.astype(np.float64) * scale).astype(np.float32)


def normalize(image, mean, std):
    """image_transforms.normalize, channels last."""
    if not np.issubdtype(image.dtype, np.floating):
        image = image.astype(np.float32)
    mean = mean if isinstance(mean, list) else [mean] * 3
    std = std if isinstance(std, list) else [std] * 3
    return (image - np.array(mean, dtype=image.dtype)) / np.array(std, dtype=image.dtype)


def preprocess(rgb, config):
    """The processors' preprocess() with the class defaults of __init__."""
    name = config.get("image_processor_type", config.get("feature_extractor_type", ""))
    kind = "clip" if name.startswith("CLIP") else "vit" if name.startswith("ViT") else "siglip"
    image = rgb
    if config.get("do_resize", True):
        size = size_dict(config, kind)
        if "shortest_edge" in size:
            height, width = get_resize_output_image_size(*image.shape[:2], size["shortest_edge"])
        else:
            height, width = size["height"], size["width"]
        image = resize(image, height, width, config.get("resample", 2 if kind == "vit" else 3))
    if kind == "clip" and config.get("do_center_crop", True):
        crop = crop_dict(config)
        image = center_crop(image, crop["height"], crop["width"])
    if config.get("do_rescale", True):
        image = rescale(image, config.get("rescale_factor", 1 / 255))
    if config.get("do_normalize", True):
        mean_default, std_default = (CLIP_MEAN, CLIP_STD) if kind == "clip" else (0.5, 0.5)
        image = normalize(image, config.get("image_mean", mean_default),
                          config.get("image_std", std_default))
    return np.ascontiguousarray(image.astype(np.float32).transpose(2, 0, 1))


# ---- images -------------------------------------------------------------------

def pattern(height, width, channels, seed):
    """Smooth gradients with noise: every value of 0..255 used, JPEG-friendly."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:height, 0:width]
    planes = []
    for c in range(channels):
        base = (x * (37 + 11 * c) + y * (23 + 7 * c)) % 256
        planes.append((base + rng.randint(0, 40, (height, width))) % 256)
    return np.stack(planes, axis=-1).astype(np.uint8)


def saved(image, fmt, **options):
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def png_bytes(samples, color_type, bit_depth, interlace=False):
    """A PNG of samples [H, W, C] (grey of 2 or 4 bits, uint8 or big-endian
    uint16 values), written by hand: PIL writes none of these, nor Adam7."""
    height, width = samples.shape[:2]
    dtype = ">u2" if bit_depth == 16 else "u1"

    def row_bytes(row):
        if bit_depth >= 8:
            return row.astype(dtype).tobytes()
        per_byte = 8 // bit_depth  # samples of fewer bits, packed from the high bits down
        values = np.concatenate([row.ravel(), np.zeros(-row.size % per_byte, row.dtype)])
        groups = values.reshape(-1, per_byte).astype(np.uint32)
        shifts = 8 - bit_depth * np.arange(1, per_byte + 1)
        return (groups << shifts).sum(axis=1).astype(np.uint8).tobytes()

    def rows(image):
        return b"".join(b"\0" + row_bytes(image[y]) for y in range(image.shape[0]))

    if interlace:
        raw = b"".join(rows(samples[y0::dy, x0::dx]) for x0, y0, dx, dy in ADAM7
                       if samples[y0::dy, x0::dx].size)
    else:
        raw = rows(samples)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, int(interlace))
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def exif_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def images():
    """name -> file bytes."""
    out = {}
    rgb = Image.fromarray(pattern(11, 17, 3, 1))
    out["rgb_17x11.png"] = saved(rgb, "PNG")
    out["grey_13x7.png"] = saved(Image.fromarray(pattern(7, 13, 1, 2)[..., 0]), "PNG")
    out["bilevel_9x5.png"] = saved(Image.fromarray(pattern(5, 9, 1, 3)[..., 0]).convert("1"),
                                   "PNG")
    out["grey_alpha_10x9.png"] = saved(Image.fromarray(pattern(9, 10, 2, 4), "LA"), "PNG")
    out["rgba_15x8.png"] = saved(Image.fromarray(pattern(8, 15, 4, 5), "RGBA"), "PNG")
    palette = Image.fromarray(pattern(7, 12, 3, 6)).quantize(colors=40)
    out["palette_trns_12x7.png"] = saved(palette, "PNG", transparency=3)
    small_palette = Image.fromarray(pattern(6, 11, 3, 7)).quantize(colors=12)
    out["palette_4bit_11x6.png"] = saved(small_palette, "PNG", bits=4)
    grey16 = (pattern(6, 11, 1, 8)[..., 0].astype(np.uint16) * 257)
    grey16[0, :5] = [0, 7, 200, 255, 256]  # a few at and around PIL's clip
    out["grey16_11x6.png"] = png_bytes(grey16[..., None], 0, 16)
    out["grey2_13x5.png"] = png_bytes(pattern(5, 13, 1, 32) % 4, 0, 2)
    out["grey4_9x7.png"] = png_bytes(pattern(7, 9, 1, 33) % 16, 0, 4, interlace=True)
    out["rgb16_8x6.png"] = png_bytes(pattern(6, 8, 3, 9).astype(np.uint16) * 251 + 3, 2, 16)
    out["grey_alpha16_7x5.png"] = png_bytes(pattern(5, 7, 2, 10).astype(np.uint16) * 257, 4, 16)
    out["interlaced_rgb_19x13.png"] = png_bytes(pattern(13, 19, 3, 11), 2, 8, interlace=True)
    out["interlaced_rgba16_9x10.png"] = png_bytes(
        pattern(10, 9, 4, 12).astype(np.uint16) * 257 + 5, 6, 16, interlace=True)
    frames = [Image.fromarray(pattern(6, 9, 3, 13 + i)) for i in range(3)]
    out["animated_9x6.png"] = saved(frames[0], "PNG", save_all=True, append_images=frames[1:])
    out["exif6_10x7.png"] = saved(Image.fromarray(pattern(7, 10, 3, 16)), "PNG",
                                  exif=exif_orientation(6))

    out["rgb_q90_23x17.jpg"] = saved(Image.fromarray(pattern(17, 23, 3, 17)), "JPEG", quality=90)
    out["grey_14x9.jpg"] = saved(Image.fromarray(pattern(9, 14, 1, 18)[..., 0]), "JPEG")
    out["progressive_21x15.jpg"] = saved(Image.fromarray(pattern(15, 21, 3, 19)), "JPEG",
                                         progressive=True, quality=85)
    out["cmyk_13x10.jpg"] = saved(Image.fromarray(pattern(10, 13, 4, 20), "CMYK"), "JPEG",
                                  quality=95)
    out["rgb_444_9x7.jpg"] = saved(Image.fromarray(pattern(7, 9, 3, 21)), "JPEG", subsampling=0)
    for value in range(1, 9):
        out[f"exif{value}_7x5.jpg"] = saved(Image.fromarray(pattern(5, 7, 3, 22)), "JPEG",
                                            quality=95, exif=exif_orientation(value))

    out["lossy_19x11.webp"] = saved(Image.fromarray(pattern(11, 19, 3, 23)), "WEBP", quality=80)
    out["lossless_rgba_13x9.webp"] = saved(Image.fromarray(pattern(9, 13, 4, 24), "RGBA"), "WEBP",
                                           lossless=True, exact=True)
    out["lossy_alpha_10x10.webp"] = saved(Image.fromarray(pattern(10, 10, 4, 25), "RGBA"), "WEBP",
                                          quality=70)
    webp_frames = [Image.fromarray(pattern(8, 12, 3, 26 + i)) for i in range(2)]
    out["animated_12x8.webp"] = saved(webp_frames[0], "WEBP", save_all=True,
                                      append_images=webp_frames[1:], lossless=True)
    out["exif8_9x6.webp"] = saved(Image.fromarray(pattern(6, 9, 3, 28)), "WEBP", lossless=True,
                                  exif=exif_orientation(8))

    # photographs, downscaled (PIL's default LANCZOS for thumbnails is not what is tested)
    astronaut = Image.fromarray(skimage.data.astronaut()).resize((200, 160), Image.BILINEAR)
    out["photo_astronaut_200x160.jpg"] = saved(astronaut, "JPEG", quality=85)
    coffee = Image.fromarray(skimage.data.coffee()).resize((150, 100), Image.BILINEAR)
    out["photo_coffee_150x100.webp"] = saved(coffee, "WEBP", quality=80)
    chelsea = Image.fromarray(skimage.data.chelsea()).resize((90, 60), Image.BILINEAR)
    out["photo_chelsea_90x60.png"] = saved(chelsea, "PNG")
    return out


# images whose pixel tensors are stored for every config
PREPROCESSED = ["rgb_17x11.png", "grey16_11x6.png", "rgb_q90_23x17.jpg", "exif6_10x7.png",
                "photo_coffee_150x100.webp", "photo_chelsea_90x60.png"]


# ---- hostile files --------------------------------------------------------------

def with_png_size(data, width, height):
    """data (a PNG) with its IHDR's size replaced, the CRC made right."""
    ihdr = struct.pack(">II", width, height) + data[24:29]
    return data[:8] + png_chunk(b"IHDR", ihdr) + data[33:]


def with_jpeg_size(data, width, height):
    """data (a baseline JPEG) with its SOF0's size replaced."""
    at = data.index(b"\xff\xc0")
    return data[:at + 5] + struct.pack(">HH", height, width) + data[at + 9:]


def hostile(files):
    """name -> (bytes, status, message, max_pixels); max_pixels 0: the default."""
    jpeg, png = files["rgb_q90_23x17.jpg"], files["rgb_17x11.png"]
    webp = files["lossless_rgba_13x9.webp"]
    big = "above the limit of 89478485"
    out = {
        "empty.bin": (b"", "TF_ERR_FORMAT", "empty.bin: empty: no image", 0),
        "text.txt": (b"hello, world\n", "TF_ERR_FORMAT",
                     "text.txt: not a JPEG, PNG or WebP image: it starts with "
                     "68 65 6c 6c 6f 2c 20 77", 0),
        "image.gif": (saved(Image.fromarray(pattern(4, 4, 3, 30)), "GIF"), "TF_ERR_UNSUPPORTED",
                      "image.gif: a GIF image; JPEG, PNG and WebP are read", 0),
        "image.bmp": (saved(Image.fromarray(pattern(4, 4, 3, 31)), "BMP"), "TF_ERR_UNSUPPORTED",
                      "image.bmp: a BMP image; JPEG, PNG and WebP are read", 0),
        "huge_65535.jpg": (with_jpeg_size(jpeg, 65535, 65535), "TF_ERR_INVALID_ARGUMENT",
                           "huge_65535.jpg: a JPEG image of 65535 x 65535 = 4294836225 pixels, "
                           + big, 0),
        "huge_65535.png": (with_png_size(png, 65535, 65535), "TF_ERR_INVALID_ARGUMENT",
                           "huge_65535.png: a PNG image of 65535 x 65535 = 4294836225 pixels, "
                           + big, 0),
        "huge_2e31.png": (with_png_size(png, 2 ** 31 - 1, 1), "TF_ERR_INVALID_ARGUMENT",
                          "huge_2e31.png: a PNG image of 2147483647 x 1 = 2147483647 pixels, "
                          + big, 0),
        "zero_width.png": (with_png_size(png, 0, 5), "TF_ERR_FORMAT",
                           "zero_width.png: a PNG image of 0 x 5 pixels: no pixels", 0),
        "truncated.jpg": (jpeg[:len(jpeg) // 2], "TF_ERR_FORMAT",
                          "truncated.jpg: truncated JPEG: the data ends before the image", 0),
        "truncated_header.jpg": (jpeg[:40], "TF_ERR_FORMAT",
                                 "truncated_header.jpg: truncated JPEG: the data ends before "
                                 "the image", 0),
        "truncated.png": (png[:len(png) - 30], "TF_ERR_FORMAT",
                          "truncated.png: truncated PNG: the data ends before the image", 0),
        "truncated.webp": (webp[:len(webp) - 10], "TF_ERR_FORMAT",
                           "truncated.webp: truncated WebP: the data ends before the image", 0),
        "bad_crc.png": (png[:29] + bytes([png[29] ^ 1]) + png[30:], "TF_ERR_FORMAT",
                        "bad_crc.png: PNG: IHDR: CRC error", 0),
    }
    # a progressive JPEG of 1020 scans (its shortest scan repeated: libjpeg only warns)
    progressive = files["progressive_21x15.jpg"]
    starts = [i for i in range(len(progressive) - 1) if progressive[i:i + 2] == b"\xff\xda"]
    scans = [progressive[a:b] for a, b in zip(starts, starts[1:] + [len(progressive) - 2])]
    out["scans_1020.jpg"] = (progressive[:-2] + min(scans, key=len) * (1020 - len(scans)) +
                             b"\xff\xd9", "TF_ERR_FORMAT",
                             "scans_1020.jpg: JPEG: more than 1000 scans", 0)
    # a decompression bomb: 3000 x 3000 zeros in 9 KB, refused under a limit of 10^6
    bomb = png_bytes(np.zeros((3000, 3000, 1), np.uint8), 0, 8)
    out["bomb_3000.png"] = (bomb, "TF_ERR_INVALID_ARGUMENT",
                            "bomb_3000.png: a PNG image of 3000 x 3000 = 9000000 pixels, above "
                            "the limit of 1000000", 1000000)
    bomb_jpeg = with_jpeg_size(jpeg, 3000, 3000)
    out["bomb_3000.jpg"] = (bomb_jpeg, "TF_ERR_INVALID_ARGUMENT",
                            "bomb_3000.jpg: a JPEG image of 3000 x 3000 = 9000000 pixels, above "
                            "the limit of 1000000", 1000000)
    bomb_webp = saved(Image.new("RGB", (3000, 3000)), "WEBP", lossless=True)
    out["bomb_3000.webp"] = (bomb_webp, "TF_ERR_INVALID_ARGUMENT",
                             "bomb_3000.webp: a WebP image of 3000 x 3000 = 9000000 pixels, "
                             "above the limit of 1000000", 1000000)
    return out


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for sub in ("files", "expected", "hostile", "configs"):
        os.makedirs(os.path.join(OUT, sub))
    for name, config in list(CONFIGS.items()) + [("clip_112", CLIP_112)]:
        with open(os.path.join(OUT, "configs", name + ".json"), "w") as f:
            json.dump(config, f, indent=2)
    files = images()
    expected = {"images": [], "hostile": [], "configs": sorted(CONFIGS)}
    for name, data in sorted(files.items()):
        write(os.path.join(OUT, "files", name), data)
        rgb = np.array(ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB"))
        write(os.path.join(OUT, "expected", name + ".rgb"), rgb.tobytes())
        entry = {"name": name, "height": rgb.shape[0], "width": rgb.shape[1], "tensors": []}
        if name in PREPROCESSED:
            for cname, config in sorted(CONFIGS.items()):
                x = preprocess(rgb, config)
                write(os.path.join(OUT, "expected", f"{name}.{cname}.f32"),
                      x.astype("<f4").tobytes())
                entry["tensors"].append({"config": cname, "shape": list(x.shape)})
        expected["images"].append(entry)
    # the larger CLIP path on one photograph: the crop's uint8 values
    photo = "photo_astronaut_200x160.jpg"
    x = preprocess(np.array(Image.open(io.BytesIO(files[photo])).convert("RGB")), CLIP_112)
    write(os.path.join(OUT, "expected", photo + ".clip_112.rgb"),
          x.transpose(1, 2, 0).astype(np.uint8).tobytes())
    expected["clip_112"] = {"image": photo, "shape": list(x.shape)}
    for name, (data, status, message, max_pixels) in sorted(hostile(files).items()):
        write(os.path.join(OUT, "hostile", name), data)
        expected["hostile"].append({"name": name, "status": status, "message": message,
                                    "max_pixels": max_pixels})
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
