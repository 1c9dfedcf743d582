#!/usr/bin/python3
"""check_explain_html.py TFENC DATA_DIR GOLDEN_DIR — `tfenc explain --html`.

For the tutorial's model, the Hugging Face BERT fixture (post-norm, learned
positions, pooler; --layer 1) and a pre-norm PyTorch checkpoint (final norm),
the page is generated and parsed:
  - well-formed: every element closed in order, nothing left open;
  - self-contained: no src/href outside the page, no <link>, <script src>,
    @import or url() to anything;
  - every traced tensor of the walkthrough (from `--dump`'s index.json of
    the same run) has its box in the diagram and its values section, each
    with the exact shape; nothing else has one; the shown values are the
    dumped ones; the arrows carry the shape algebra of the model's sizes;
  - one heatmap per head with T x T cells; every picture has a title and a
    description;
  - the worked example's values are softmax(Q K^T / sqrt 2) of the
    tutorial's Q and K, beside the tutorial's own rounded numbers.
A fill-mask folder's page holds the table position x top-k tokens with
probabilities (the mask's row: gen_mlm.py's float64 fill-mask reference)
and the sparse vector's top terms; a ColBERT folder's, the document rows
with the tokens the skiplist dropped and the query's [MASK] expansion.
An image model's page (--image, the folders of tests/data/image_pipeline/
on a photograph): the patch grid's 16 patches, the image as the processor
makes it and the file as decoded (the inline PNGs decoded: PIL's pixels),
the region the tower reads outlined on it, one heatmap per layer and head (SigLIP:
per head of its probe too) and the attention rollout, their values within
1e-5 of explain_image_reference.py's PyTorch forward; a decoded image over a
megapixel is named, not drawn.
Bad input: --layer out of range (exit 2, both values named) and an
unwritable path (exit 1, the path named) write nothing; a write that fails
midway (a file-size limit) leaves the old page whole and no temporary file.
"""
import html.parser
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile

import numpy as np

VOID = {"meta", "br", "img", "hr", "input", "link", "wbr", "col", "area", "base", "source"}
SVG_LEAVES = {"rect", "line", "polyline", "path", "circle"}

# The tutorial's section 3.3, as it prints them (3 decimals; Q K^T to 2).
TUTORIAL = {
    "qk": [[0.11, 0.23, 0.35], [0.39, 0.83, 1.27], [0.67, 1.43, 2.19]],
    "scaled": [[0.078, 0.163, 0.248], [0.276, 0.587, 0.898], [0.474, 1.011, 1.549]],
    "exp": [[1.081, 1.177, 1.281], [1.318, 1.800, 2.455], [1.606, 2.748, 4.707]],
    "sum": [[3.539], [5.573], [9.061]],
    "weights": [[0.305, 0.333, 0.362], [0.237, 0.323, 0.440], [0.177, 0.303, 0.520]],
}
Q = np.array([[0.1, 0.2], [0.5, 0.6], [0.9, 1.0]], dtype=np.float32).astype(np.float64)
K = Q + np.float32(0.2)

PNG_URI = "data:image/png;base64,"  # the image page's one picture, inline

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


class Page(html.parser.HTMLParser):
    """The page's elements as a tree of dicts, checked for balance."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = {"tag": "#root", "attrs": {}, "children": [], "text": ""}
        self.stack = [self.root]
        self.errors = []
        self.styles = []

    def handle_starttag(self, tag, attrs):
        node = {"tag": tag, "attrs": dict(attrs), "children": [], "text": ""}
        self.stack[-1]["children"].append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1]["children"].append(
            {"tag": tag, "attrs": dict(attrs), "children": [], "text": ""})

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.stack[-1]["tag"] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1]['tag']}> at line {self.getpos()[0]}")
            return
        self.stack.pop()

    def handle_data(self, data):
        for node in self.stack:
            node["text"] += data
        if self.stack[-1]["tag"] == "style":
            self.styles.append(data)


def walk(node):
    yield node
    for child in node["children"]:
        yield from walk(child)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def generate(tfenc, tmp, name, args):
    """The page and the dump of one run: (page text, index, dump dir)."""
    page, dump = os.path.join(tmp, name + ".html"), os.path.join(tmp, name + ".dump")
    r = run([tfenc, "explain", *args, "--html", page])
    if r.returncode != 0 or "wrote " + page not in r.stdout:
        fail(f"{name}: tfenc explain --html exited {r.returncode}: {r.stderr}{r.stdout}")
        return None
    r = run([tfenc, "explain", *args, "--dump", dump])
    if r.returncode != 0:
        fail(f"{name}: --dump exited {r.returncode}: {r.stderr}")
        return None
    with open(page, encoding="utf-8") as f:
        text = f.read()
    with open(os.path.join(dump, "index.json"), encoding="utf-8") as f:
        return text, json.load(f), dump


def check_well_formed(name, text):
    p = Page()
    p.feed(text)
    p.close()
    for e in p.errors:
        fail(f"{name}: {e}")
    if len(p.stack) != 1:
        fail(f"{name}: left open: {[n['tag'] for n in p.stack[1:]]}")
    if not text.startswith("<!DOCTYPE html>"):
        fail(f"{name}: no doctype")
    return p


def check_self_contained(name, p, text):
    for node in walk(p.root):
        for attr in ("src", "href", "xlink:href", "action", "poster", "data", "srcset"):
            value = node["attrs"].get(attr)
            inline = node["tag"] == "image" and (value or "").startswith(PNG_URI)
            if value is not None and not value.startswith("#") and not inline:
                fail(f"{name}: <{node['tag']} {attr}=\"{value}\"> points outside the page")
        if node["tag"] in ("link", "iframe", "object", "embed", "img", "base"):
            fail(f"{name}: a <{node['tag']}> element")
        if node["tag"] == "script" and "src" in node["attrs"]:
            fail(f"{name}: a script from elsewhere")
        style = node["attrs"].get("style", "")
        if "url(" in style or "@import" in style:
            fail(f"{name}: an inline style fetches: {style}")
    css = "".join(p.styles)
    if "@import" in css or "url(" in css:
        fail(f"{name}: the style sheet fetches something")
    if re.search(r"(https?:|file:)//", text) or re.search(r"""=["']//""", text):
        fail(f"{name}: an absolute URL in the page")


def walkthrough_tensors(index, layer):
    return [t for t in index["tensors"]
            if t["layer"] < 0 or t["layer"] == layer or t["name"].endswith(".add_norm2")]


def shape_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def tutorial_shape(t):
    """The shape as the tutorial writes it, the batch of one dropped:
    "(5, 512)", "8 × (5, 64)", "(128)"."""
    d = t["shape"][1:] if t["dims"].startswith("B,") else t["shape"]
    if len(d) == 3:
        return f"{d[0]} × ({d[1]}, {d[2]})"
    return "(" + ", ".join(str(x) for x in d) + ")"


def check_tensors(name, p, index, dump, layer):
    expected = walkthrough_tensors(index, layer)
    nodes = list(walk(p.root))
    boxes = {n["attrs"]["data-tensor"]: n for n in nodes
             if n["tag"] == "a" and "node" in n["attrs"].get("class", "")}
    sections = {n["attrs"]["data-tensor"]: n for n in nodes
                if n["tag"] == "section" and "tensor" in n["attrs"].get("class", "").split()}
    names = [t["name"] for t in expected]
    if sorted(boxes) != sorted(names):
        fail(f"{name}: diagram boxes {sorted(boxes)} != traced {sorted(names)}")
    if sorted(sections) != sorted(names):
        fail(f"{name}: value sections {sorted(sections)} != traced {sorted(names)}")
    for t in expected:
        want = shape_text(t["shape"])
        box, sec = boxes.get(t["name"]), sections.get(t["name"])
        if box is None or sec is None:
            continue
        if box["attrs"].get("data-shape") != want or box["attrs"].get("href") != "#t-" + t["name"]:
            fail(f"{name}: box of {t['name']}: {box['attrs']} (want shape {want})")
        label = [n["text"] for n in walk(box) if n["tag"] == "text"]
        if len(label) != 2 or not label[0].endswith(tutorial_shape(t)) or \
                not label[1].startswith(t["name"]):
            fail(f"{name}: box of {t['name']} reads {label}, want its name and "
                 f"{tutorial_shape(t)}")
        if sec["attrs"].get("id") != "t-" + t["name"] or sec["attrs"].get("data-shape") != want:
            fail(f"{name}: section of {t['name']}: {sec['attrs']} (want shape {want})")
        if f"{t['name']} {want} ({t['dims']})" not in " ".join(sec["text"].split()):
            fail(f"{name}: section of {t['name']} does not say {want} ({t['dims']})")
        check_values(name, t, sec, dump)


def check_values(name, t, sec, dump):
    """The first row of the section's table is the dumped tensor's (one head)."""
    data = np.load(os.path.join(dump, t["file"]))
    row = data.reshape(-1, data.shape[-1])[0] if data.ndim != 4 else data[0, 0, 0]
    cells = [n for n in walk(sec) if n["tag"] == "td"]
    shown = min(len(row), 8)
    for j in range(shown):
        if abs(float(cells[j]["text"]) - row[j]) > 5e-5 + 1e-4 * abs(row[j]):
            fail(f"{name}: {t['name']}[0][{j}] shown {cells[j]['text']}, dumped {row[j]:.6f}")
            return
    stats = " ".join(n["text"] for n in walk(sec) if "stats" in n["attrs"].get("class", ""))
    m = re.search(r"min (\S+), max (\S+), mean (\S+?)\.", stats)
    if not m or not math.isclose(float(m[1]), data.min(), rel_tol=1e-3, abs_tol=1e-6) or \
            not math.isclose(float(m[2]), data.max(), rel_tol=1e-3, abs_tol=1e-6):
        fail(f"{name}: {t['name']} stats '{stats}' vs min {data.min()} max {data.max()}")
    if t["name"].endswith("attn.weights"):
        sums = [float(n["text"]) for n in walk(sec) if n["attrs"].get("class") == "sum"]
        if len(sums) != data.shape[2] or any(abs(s - 1) > 1e-5 for s in sums):
            fail(f"{name}: row sums of {t['name']}: {sums}")


def check_algebra(name, text, index, layer):
    """The arrows' shape algebra, from the traced shapes."""
    shapes = {t["name"]: t["shape"] for t in index["tensors"]}
    _, H, T, dk = shapes[f"layers.{layer}.attn.q"]
    D = shapes[f"layers.{layer}.attn.out"][2]
    F = shapes[f"layers.{layer}.ffn.hidden"][2]
    for want in (f"{H} × ({T}, {dk})", f"({T}, {D}) · ({D}, {dk}) → ({T}, {dk}) per head",
                 f"({T}, {dk}) · ({dk}, {T}) → ({T}, {T}) per head",
                 f"concat: {H} × ({T}, {dk}) → ({T}, {D})",
                 f"({T}, {D}) · ({D}, {F}) → ({T}, {F})", f"({T}, {F}) · ({F}, {D}) → ({T}, {D})",
                 f"√d_k (√{dk} = {math.sqrt(dk):.3f})"):
        if want not in text:
            fail(f"{name}: the diagram lacks '{want}'")


def check_pictures(name, p, index, layer):
    nodes = list(walk(p.root))
    shapes = {t["name"]: t["shape"] for t in index["tensors"]}
    _, H, T, _ = shapes[f"layers.{layer}.attn.weights"]
    svgs = [n for n in nodes if n["tag"] == "svg"]
    for svg in svgs:
        kids = {c["tag"] for c in svg["children"]}
        if "title" not in kids or "desc" not in kids or "aria-labelledby" not in svg["attrs"]:
            fail(f"{name}: <svg id={svg['attrs'].get('id')}> lacks a title, desc or label")
    heat = [s for s in svgs if s["attrs"].get("id", "").startswith("heatmap-")]
    if len(heat) != H:
        fail(f"{name}: {len(heat)} heatmaps for {H} heads")
    for s in heat:
        cells = [c for c in s["children"] if c["tag"] == "rect" and c["attrs"].get("fill", "")[:1] == "#"]
        if len(cells) != T * T:
            fail(f"{name}: {s['attrs']['id']} has {len(cells)} cells, want {T * T}")
    ids = {n["attrs"].get("id") for n in nodes}
    pictures = ["diagram", "heatmaps", "colour-scale", "ffn-histogram", "worked-table"]
    if "embed.position" in shapes:
        pictures += ["position-table", "position-curves"]
    for want in pictures:
        if want not in ids:
            fail(f"{name}: no #{want}")
    if not any(i and i.startswith("norm-") for i in ids):
        fail(f"{name}: no LayerNorm chart")
    head_title = [n for n in nodes if n["tag"] == "title" and n is not None]
    if not head_title or "step by step" not in head_title[0]["text"]:
        fail(f"{name}: no page <title>")


def check_worked_example(name, p):
    cells = {}
    for n in walk(p.root):
        for key in ("data-we", "data-we-tutorial"):
            if key in n["attrs"]:
                cells[(key, n["attrs"][key])] = float(n["text"])
    s = Q @ K.T
    scaled = s / math.sqrt(2)
    e = np.exp(scaled.astype(np.float32).astype(np.float64))
    ours = {"q": Q, "k": K, "qk": s, "scaled": scaled, "exp": e,
            "sum": e.sum(axis=1, keepdims=True), "weights": e / e.sum(axis=1, keepdims=True)}
    for key, m in ours.items():
        for (i, j), v in np.ndenumerate(m):
            got = cells.get(("data-we", f"{key}.{i}.{j}"))
            if got is None or abs(got - v) > 6e-4:
                fail(f"{name}: worked example {key}[{i}][{j}] = {got}, expected {v:.4f}")
    for key, m in TUTORIAL.items():
        for (i, j), v in np.ndenumerate(np.array(m)):
            if cells.get(("data-we-tutorial", f"{key}.{i}.{j}")) != v:
                fail(f"{name}: tutorial's {key}[{i}][{j}] shown "
                     f"{cells.get(('data-we-tutorial', f'{key}.{i}.{j}'))}, the tutorial has {v}")


def check_page(tfenc, tmp, name, args, layer, must_say):
    got = generate(tfenc, tmp, name, args)
    if got is None:
        return
    text, index, dump = got
    p = check_well_formed(name, text)
    check_self_contained(name, p, text)
    check_tensors(name, p, index, dump, layer)
    check_algebra(name, text, index, layer)
    check_pictures(name, p, index, layer)
    check_worked_example(name, p)
    for want in must_say:
        if want not in text:
            fail(f"{name}: the page does not say '{want}'")
    print(f"{name}: {len(text)} bytes, {len(walkthrough_tensors(index, layer))} tensors checked")


def small_file_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def check_bad_input(tfenc, data, tmp):
    bert = os.path.join(data, "bert_tiny")
    page = os.path.join(tmp, "bad.html")
    r = run([tfenc, "explain", "--model", bert, "--layer", "2", "--html", page])
    want = "tfenc explain: --layer: expected an integer 0..1 (the model's layers), got '2'"
    if r.returncode != 2 or want not in r.stderr or os.path.exists(page):
        fail(f"--layer 2 of 2 layers: exit {r.returncode}, stderr {r.stderr!r}")
    missing = os.path.join(tmp, "no-such-dir", "page.html")
    r = run([tfenc, "explain", "--html", missing])
    if r.returncode != 1 or f"--html: {missing}: cannot create" not in r.stderr:
        fail(f"unwritable path: exit {r.returncode}, stderr {r.stderr!r}")
    if os.path.exists(os.path.dirname(missing)):
        fail("unwritable path: something was created")
    # a page already there, then a run whose write fails midway
    r = run([tfenc, "explain", "--text", "hello world", "--html", page])
    with open(page, "rb") as f:
        before = f.read()
    r = run([tfenc, "explain", "--html", page], preexec_fn=small_file_limit)
    with open(page, "rb") as f:
        after = f.read()
    left = [f for f in os.listdir(tmp) if ".tmp" in f]
    if r.returncode != 1 or f"--html: {page}: cannot write" not in r.stderr:
        fail(f"a failing write: exit {r.returncode}, stderr {r.stderr!r}")
    if after != before or left:
        fail(f"a failing write changed the page ({len(before)} -> {len(after)} bytes) "
             f"or left {left}")


# --image: the folders of tests/data/image_pipeline/ on a photograph, each
# family's reference (explain_image_reference.py)
IMAGE_PAGES = {"clip": "clip", "siglip": "siglip", "vit_classifier": "vit",
               "vit_model": "vit_model"}
IMAGE_TOL = 1e-5


def figure_values(node):
    return np.array([float(v) for v in node["attrs"]["data-values"].split()])


def check_image_page(tfenc, data, tmp, name, family):
    """The page of one folder: well-formed and self-contained; the grid's
    patches; the image as the tower reads it; a heatmap per layer and head
    (and per head of SigLIP's probe) and the rollout, their values the
    PyTorch reference's within IMAGE_TOL."""
    import base64
    import io

    from PIL import Image

    import explain_image_reference as ref
    folder = os.path.join(data, "image_pipeline", name)
    photo = os.path.join(data, "images", "files", "photo_astronaut_200x160.jpg")
    page = os.path.join(tmp, f"image-{name}.html")
    r = run([tfenc, "explain", "--model", folder, "--image", photo, "--html", page])
    want = f"wrote {page}: 4 x 4 patches, 2 layers x 2 heads of attention"
    if r.returncode != 0 or want not in r.stdout:
        fail(f"{name}: tfenc explain --image --html exited {r.returncode}: {r.stderr}{r.stdout}")
        return
    with open(page, encoding="utf-8") as f:
        text = f.read()
    p = check_well_formed(name, text)
    check_self_contained(name, p, text)
    expected = ref.reference(folder, family, photo)
    nodes = list(walk(p.root))
    grid = [n for n in nodes if n["attrs"].get("id") == "patch-grid"]
    patches = [n for n in nodes if n["tag"] == "rect" and n["attrs"].get("class") == "patch"]
    if len(grid) != 1 or [grid[0]["attrs"].get(k) for k in
                          ("data-rows", "data-cols", "data-patch", "data-patches")] != \
            ["4", "4", "8", "16"] or len(patches) != 16:
        fail(f"{name}: the patch grid: {[g['attrs'] for g in grid]}, {len(patches)} patches")
    def inline_png(node):
        png = base64.b64decode(node["attrs"]["href"][len(PNG_URI):])
        return np.array(Image.open(io.BytesIO(png)).convert("RGB"))
    images = [n for n in nodes if n["tag"] == "image" and "href" in n["attrs"]]
    shown = [n for n in images if n["attrs"].get("id") == "shown-image"]
    decoded = [n for n in walk(next((n for n in nodes if n["attrs"].get("id") == "decoded"),
                                    {"children": []})) if n["tag"] == "image"]
    if len(images) != 2 or len(shown) != 1 or len(decoded) != 1:
        fail(f"{name}: {len(images)} inline images, not the decoded one and the tower's")
        return
    for what, node, want in (("the tower's image", shown[0], expected["image"]),
                             ("the decoded image", decoded[0], ref.load_rgb(photo))):
        got = inline_png(node)
        if got.shape != want.shape or (got != want).any():
            fail(f"{name}: {what} drawn {got.shape} is not PIL's {want.shape}")
    crop = [n for n in nodes if n["tag"] == "rect" and n["attrs"].get("class") == "crop"]
    box = [float(crop[0]["attrs"][k]) for k in ("x", "y", "width", "height")] if crop else []
    if box != expected["crop"]:
        fail(f"{name}: the region the tower reads is outlined at {box}, not {expected['crop']}")
    maps = {(int(n["attrs"]["data-layer"]), int(n["attrs"]["data-head"])): n for n in nodes
            if n["tag"] == "figure" and n["attrs"].get("class") == "attn"}
    L, H, P = expected["maps"].shape
    if sorted(maps) != [(l, h) for l in range(L) for h in range(H)]:
        fail(f"{name}: heatmaps of {sorted(maps)}, not one per layer and head")
        return
    worst = 0.0
    for (l, h), node in maps.items():
        cells = [n for n in walk(node) if n["tag"] == "rect" and n["attrs"].get("class") == "heat"]
        got = figure_values(node)
        if len(cells) != P or got.shape != (P,):
            fail(f"{name}: layer {l} head {h}: {len(cells)} cells, {got.shape} values")
            continue
        worst = max(worst, np.abs(got - expected["maps"][l, h]).max())
    probes = {int(n["attrs"]["data-head"]): figure_values(n) for n in nodes
              if n["tag"] == "figure" and n["attrs"].get("class") == "probe"}
    if ("probe" in expected) != bool(probes) or (probes and sorted(probes) != list(range(H))):
        fail(f"{name}: probe heatmaps {sorted(probes)}")
    for h, got in probes.items():
        worst = max(worst, np.abs(got - expected["probe"][h]).max())
    rollout = [figure_values(n) for n in nodes if n["attrs"].get("id") == "rollout"]
    if len(rollout) != 1 or rollout[0].shape != (P,):
        fail(f"{name}: the rollout figure: {len(rollout)}")
        return
    worst_rollout = np.abs(rollout[0] - expected["rollout"]).max()
    if worst > IMAGE_TOL or worst_rollout > IMAGE_TOL:
        fail(f"{name}: attention off by {worst:.2e}, rollout by {worst_rollout:.2e} "
             f"(tolerance {IMAGE_TOL})")
    print(f"image {name}: grid 4 x 4, the decoded image and the crop's region, the image as the "
          f"processor makes it, {len(maps)} heatmaps"
          f"{f' and {len(probes)} probe maps' if probes else ''}: attention within "
          f"{worst:.1e}, rollout within {worst_rollout:.1e} of PyTorch")


def check_large_image(tfenc, data, tmp):
    """A decoded image over a megapixel is named on the page, not drawn: the
    tower's image is the one picture."""
    from PIL import Image
    photo = os.path.join(tmp, "large.png")
    Image.new("RGB", (1100, 1000), (200, 30, 30)).save(photo)
    page = os.path.join(tmp, "large.html")
    r = run([tfenc, "explain", "--model", os.path.join(data, "image_pipeline", "clip"),
             "--image", photo, "--html", page])
    if r.returncode != 0:
        fail(f"a large image: exit {r.returncode}: {r.stderr}")
        return
    with open(page, encoding="utf-8") as f:
        text = f.read()
    note = "The decoded image (1100 \u00d7 1000) is larger than 1048576 pixels and is not drawn"
    if note not in text or text.count(PNG_URI) != 1:
        fail(f"a large image: {text.count(PNG_URI)} inline images, the note: {note in text}")


def table_rows(p, table_id):
    """The rows of table table_id as lists of their cells' text (None: no table)."""
    table = next((n for n in walk(p.root) if n["attrs"].get("id") == table_id), None)
    if table is None:
        return None
    return [[c["text"].strip() for c in row["children"] if c["tag"] in ("td", "th")]
            for row in walk(table) if row["tag"] == "tr"]


def check_retrieval(tfenc, data, tmp):
    mlm = os.path.join(data, "mlm", "bert_base_uncased")
    with open(os.path.join(mlm, "expected.json"), encoding="utf-8") as f:
        case = json.load(f)["cases"][0]  # "the cat sat on the [MASK]."
    page = os.path.join(tmp, "mlm.html")
    r = run([tfenc, "explain", "--model", mlm, "--vocab", os.path.join(mlm, "vocab.txt"),
             "--text", case["text"], "--html", page])
    if r.returncode != 0:
        fail(f"fill-mask page: exit {r.returncode}: {r.stderr}")
        return
    with open(page, encoding="utf-8") as f:
        p = check_well_formed("fill-mask", f.read())
    rows = table_rows(p, "mlm-table")
    if rows is None or len(rows) != 1 + len(case["ids"]):
        fail(f"fill-mask: mlm-table rows {None if rows is None else len(rows)}, want "
             f"1 + {len(case['ids'])}")
    else:
        at = case["mask_positions"][0]
        want = [str(at), "[MASK]"] + [f"{x['token_str']} {x['score']:.3f}"
                                      for x in case["predictions"][0]]
        if rows[1 + at] != want:
            fail(f"fill-mask: the mask's row {rows[1 + at]}, the reference {want}")
    terms = table_rows(p, "sparse-terms")
    if terms is None or len(terms) != 11:
        fail(f"fill-mask: sparse-terms rows {terms}")
    elif any(float(a[2]) < float(b[2]) for a, b in zip(terms[1:], terms[2:])):
        fail(f"fill-mask: sparse terms not largest first: {terms}")
    colbert = os.path.join(data, "colbert", "answerai_like")
    page = os.path.join(tmp, "colbert.html")
    r = run([tfenc, "explain", "--model", colbert, "--vocab", os.path.join(colbert, "vocab.txt"),
             "--text", "the cat sat, on the mat.", "--html", page])
    if r.returncode != 0:
        fail(f"ColBERT page: exit {r.returncode}: {r.stderr}")
        return
    with open(page, encoding="utf-8") as f:
        p = check_well_formed("colbert", f.read())
    doc, query = table_rows(p, "colbert-document"), table_rows(p, "colbert-query")
    skipped = [r[0] for r in doc or [] if r[1:2] == ["skipped"]]
    if skipped != [",", "."]:
        fail(f"ColBERT: skipped tokens {skipped}, want the punctuation [',', '.']")
    expansion = [r[0] for r in query or [] if r[-1].endswith("(expansion)")]
    if query is None or len(query) != 13 or expansion != ["[MASK]"]:
        fail(f"ColBERT: query rows {query}")
    print("retrieval pages: the masked-LM table, the sparse terms, ColBERT's skiplist and "
          "expansion checked")


def main():
    tfenc, data, golden = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        check_page(tfenc, tmp, "tutorial", [], 0,
                   ["post-norm", "sinusoidal positions", "d_model 512, 8 heads (d_k 64)",
                    "PE(t, 2i) = sin(t/10000^(2i/512))"])
        check_page(tfenc, tmp, "bert_tiny", ["--model", os.path.join(data, "bert_tiny"),
                                             "--layer", "1"], 1,
                   ["post-norm", "learned positions", "a pooler", "tanh(W_p h[CLS] + b_p)",
                    "Layer 0 (the same steps)", "Token-type embedding"])
        check_page(tfenc, tmp, "pre_norm", ["--model", os.path.join(
            golden, "pytorch_encoder_f16_metadata", "model.safetensors")], 0,
                   ["pre-norm", "a final LayerNorm", "LayerNorm (pre-norm)", "adds none",
                    "x + attention output (pre-norm: no norm here)"])
        check_retrieval(tfenc, data, tmp)
        for name, family in IMAGE_PAGES.items():
            check_image_page(tfenc, data, tmp, name, family)
        check_large_image(tfenc, data, tmp)
        check_bad_input(tfenc, data, tmp)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("explain --html: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
