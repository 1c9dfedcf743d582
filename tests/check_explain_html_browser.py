#!/usr/bin/python3
"""check_explain_html_browser.py TFENC DATA_DIR [--save DIR] — the --html
page in a real browser: headless Chromium (Debian's `chromium`), driven over
its DevTools pipe, renders the page of the tutorial's model and of the
Hugging Face BERT fixture, and of a 50-token WordPiece text (wide tables,
small heatmap cells), at a desktop width (1280) and a phone's (390):
  - no console message of level error, no uncaught exception (checked
    first on a page that logs one, so the check is known to catch it);
  - no horizontal scroll at either width (scrollWidth <= innerWidth), nor
    printed (print media at the desktop width; it prints to a PDF);
  - the screenshot of the page's top is not blank, the diagram's region in
    it holds its boxes (their fill colour) and the heatmaps' region, shot on
    its own, is mostly viridis-coloured cells (the PNGs decoded here: a
    corner shot with Chromium's own filter per row and with Up on every row
    must decode alike).
An --image page (the CLIP test folder on a photograph) at both widths: no
error, no sideways scroll, the image drawn at least 150 px wide in each of
its 4 heatmaps, the grid's region the photograph's many colours, the
heatmaps' region coloured.
--save DIR keeps the PNGs (tutorial-desktop.png is docs/explain_html.png,
shown in docs/cli.md; image-desktop.png docs/explain_image.png, in
docs/images.md; see docs/screenshot_walkthrough.sh). Without chromium: exit
77 (skipped).
"""
import base64
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

SKIP = 77
TOP = 1600                     # the height of the screenshot of the page's top
WIDTHS = {"desktop": (1280, False), "phone": (390, True)}
BOX_FILL = (0xee, 0xf3, 0xfb)  # the diagram's boxes (tools/explain/explain_html.c)
DEADLINE = 60                  # seconds for any one browser reply

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


class Browser:
    """One headless Chromium, spoken to over --remote-debugging-pipe (its fd
    3 reads our NUL-terminated JSON commands, fd 4 writes its replies)."""

    def __init__(self, exe, profile, log):
        to_browser, self.to_us = os.pipe(), os.pipe()
        read_end, write_end = to_browser[0], self.to_us[1]

        def give_fds():
            a, b = os.dup(read_end), os.dup(write_end)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--disable-extensions", "--hide-scrollbars",
             "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=give_fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=log)
        os.close(read_end)
        os.close(write_end)
        self.out = to_browser[1]
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def receive(self):
        end = time.monotonic() + DEADLINE
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.to_us[0]], [], [], max(0, end - time.monotonic()))
            if not ready:
                raise TimeoutError("the browser did not answer")
            chunk = os.read(self.to_us[0], 1 << 20)
            if not chunk:
                raise EOFError("the browser exited")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        i = self.send(method, params, session)
        while True:
            msg = self.receive()
            if msg.get("id") == i:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    def wait_for(self, method):
        while True:
            msg = self.receive()
            self.events.append(msg)
            if msg.get("method") == method:
                return msg

    def close(self):
        try:
            self.call("Browser.close")
        except (EOFError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def console_errors(events):
    """Errors the page logged or threw, from the DevTools events."""
    found = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            found.append("exception: " + p["exceptionDetails"].get("text", ""))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            found.append("console." + p["type"] + ": " +
                         " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"]))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            found.append("log: " + p["entry"].get("text", ""))
    return found


def open_tab(browser, url, width, mobile):
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        browser.call(domain + ".enable", None, s)
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile}, s)
    browser.events.clear()
    browser.call("Page.navigate", {"url": url}, s)
    browser.wait_for("Page.loadEventFired")
    evaluate(browser, s, "document.fonts.ready.then(() => true)")
    return target, s


def evaluate(browser, session, expression):
    r = browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                          "awaitPromise": True}, session)
    if "exceptionDetails" in r:
        raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
    return r["result"]["value"]


def screenshot(browser, session, x, y, w, h, fast=True):
    """A PNG of the page's rectangle. fast (optimizeForSpeed) has Chromium
    filter every row with Up, which decode_png undoes for the whole image at
    once; without it, Chromium picks a filter per row (Sub, Up, Paeth)."""
    r = browser.call("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "optimizeForSpeed": fast,
        "clip": {"x": x, "y": y, "width": w, "height": h, "scale": 1}}, session)
    return base64.b64decode(r["data"])


def decode_png(data):
    """An 8-bit RGB or RGBA PNG as an (h, w, 3) uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour type {colour}"
        elif kind == b"IDAT":
            idat += chunk
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, w * bpp + 1)
    filters, lines = raw[:, 0], raw[:, 1:]
    if (filters == 2).all():  # Up on every row: each row the sum of those above
        out = np.cumsum(lines, axis=0, dtype=np.uint8)
    else:
        out = unfilter_rows(filters, lines, bpp)
    return out.reshape(h, w, bpp)[:, :, :3]


def unfilter_rows(filters, lines, bpp):
    """Each row of lines (h, w * bpp) unfiltered by its filter type, in turn."""
    h, n = lines.shape
    out = np.zeros((h, n), dtype=np.uint8)
    prev = np.zeros(n, dtype=np.int32)
    for y in range(h):
        f, line = filters[y], lines[y].astype(np.int32)
        if f == 0:
            row = line
        elif f == 1:  # Sub: a running sum per channel
            row = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) % 256
        elif f == 2:  # Up
            row = (line + prev) % 256
        else:         # Average and Paeth depend on the pixel to the left
            row = np.zeros_like(line)
            for i in range(n):
                a = row[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if f == 3:
                    row[i] = (line[i] + (a + b) // 2) % 256
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    nearest = a if pa <= pb and pa <= pc else b if pb <= pc else c
                    row[i] = (line[i] + nearest) % 256
        out[y] = row
        prev = row
    return out


def colours(img):
    """How many different colours img holds."""
    i = img.astype(np.uint32)
    return len(np.unique((i[..., 0] << 16) | (i[..., 1] << 8) | i[..., 2]))


def non_white(img):
    """Pixels that are not the page's white (the boxes' pale fill counts)."""
    return float((img.min(axis=2) < 250).mean()) if img.size else 0.0


def viridis_like(img):
    """Pixels of a strong hue (the heatmaps' cells), not grey or white."""
    i = img.astype(np.int32)
    return float(((i.max(axis=2) - i.min(axis=2)) > 40).mean()) if img.size else 0.0


def near(img, rgb, tol=6):
    return float((np.abs(img.astype(np.int32) - np.array(rgb)).max(axis=2) <= tol).mean())


def region(img, rect, top=0):
    """The part of img (whose row 0 is page y=top) inside rect."""
    x0, y0 = max(int(rect["x"]), 0), max(int(rect["y"]) - top, 0)
    x1, y1 = int(rect["x"] + rect["width"]), int(rect["y"] + rect["height"]) - top
    return img[y0:max(y0, y1), x0:max(x0, x1)]


def check_print(browser, session, what):
    """Printed: the print style sheet keeps the page within the paper's
    width, and it prints to a PDF of several pages."""
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session)
    sw, iw = evaluate(browser, session, "[document.documentElement.scrollWidth, innerWidth]")
    pdf = base64.b64decode(browser.call("Page.printToPDF", {}, session)["data"])
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
    browser.call("Emulation.setEmulatedMedia", {"media": ""}, session)
    if sw > iw or not pdf.startswith(b"%PDF") or pages < 2:
        fail(f"{what}, printed: scrollWidth {sw} of {iw}, a PDF of {pages} pages")


RECTS = """(() => {
  const r = id => { const e = document.getElementById(id); if (!e) return null;
    const b = e.getBoundingClientRect();
    return {x: b.left + scrollX, y: b.top + scrollY, width: b.width, height: b.height}; };
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
          height: document.documentElement.scrollHeight,
          diagram: r('diagram'), heatmaps: r('heatmaps')};
})()"""


def check_render(browser, name, url, view, save):
    width, mobile = WIDTHS[view]
    what = f"{name} at {width} px"
    target, s = open_tab(browser, url, width, mobile)
    m = evaluate(browser, s, RECTS)
    for err in console_errors(browser.events):
        fail(f"{what}: {err}")
    if m["scrollWidth"] > m["innerWidth"] or m["innerWidth"] != width:
        fail(f"{what}: the page scrolls sideways: scrollWidth {m['scrollWidth']}, "
             f"innerWidth {m['innerWidth']}")
    if not m["diagram"] or not m["heatmaps"]:
        fail(f"{what}: no #diagram or #heatmaps: {m}")
        return
    if m["diagram"]["x"] + m["diagram"]["width"] > width + 0.5:
        fail(f"{what}: the diagram is wider than the screen: {m['diagram']}")
    if not mobile:
        check_print(browser, s, what)
    top_png = screenshot(browser, s, 0, 0, width, min(TOP, m["height"]))
    h = m["heatmaps"]
    heat_png = screenshot(browser, s, h["x"], h["y"], h["width"], h["height"])
    browser.call("Target.closeTarget", {"targetId": target})
    top, heat = decode_png(top_png), decode_png(heat_png)
    if top.shape[1] != width or not 0.02 < non_white(top) < 0.9 or \
            colours(top) < 30:
        fail(f"{what}: the top of the page looks blank: {top.shape}, "
             f"{non_white(top):.3f} non-white")
    diagram = region(top, m["diagram"])
    if diagram.size == 0 or non_white(diagram) < 0.3 or near(diagram, BOX_FILL) < 0.2:
        fail(f"{what}: the diagram's region: {non_white(diagram):.3f} non-white, "
             f"{near(diagram, BOX_FILL):.3f} box fill")
    if viridis_like(heat) < 0.15:
        fail(f"{what}: the heatmaps' region is {viridis_like(heat):.3f} coloured")
    print(f"{what}: scrollWidth {m['scrollWidth']}, page {m['height']} px high; top "
          f"{non_white(top):.2f} non-white, diagram {non_white(diagram):.2f} "
          f"({near(diagram, BOX_FILL):.2f} box fill), heatmaps {viridis_like(heat):.2f} coloured")
    if save:
        for suffix, png in (("", top_png), ("-heatmaps", heat_png)):
            with open(os.path.join(save, f"{name}-{view}{suffix}.png"), "wb") as f:
                f.write(png)


IMAGE_RECTS = """(() => {
  const r = e => { if (!e) return null; const b = e.getBoundingClientRect();
    return {x: b.left + scrollX, y: b.top + scrollY, width: b.width, height: b.height}; };
  const maps = [...document.querySelectorAll('figure.attn svg')];
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
          height: document.documentElement.scrollHeight,
          grid: r(document.getElementById('patch-grid-svg')),
          attention: r(document.getElementById('attention')),
          maps: maps.length, drawn: maps.filter(m => m.getBoundingClientRect().width >= 150).length,
          image: (() => { const i = document.getElementById('shown-image');
                          return i ? i.getBoundingClientRect().width : 0; })()};
})()"""


def check_image_render(browser, name, url, view, save):
    """An --image page: no error, no sideways scroll; the image drawn (many
    colours: the photograph, not a blank box) at least 150 px wide in every
    heatmap; the heatmaps' region coloured."""
    width, mobile = WIDTHS[view]
    what = f"{name} at {width} px"
    target, s = open_tab(browser, url, width, mobile)
    m = evaluate(browser, s, IMAGE_RECTS)
    for err in console_errors(browser.events):
        fail(f"{what}: {err}")
    if m["scrollWidth"] > m["innerWidth"]:
        fail(f"{what}: the page scrolls sideways: scrollWidth {m['scrollWidth']}")
    if not m["grid"] or not m["attention"] or m["maps"] != 4 or m["drawn"] != 4 or \
            m["image"] < 150:
        fail(f"{what}: the grid, the heatmaps or the image are missing or small: {m}")
        return
    top_png = screenshot(browser, s, 0, 0, width, min(TOP, m["height"]))
    g, a = m["grid"], m["attention"]
    grid = decode_png(screenshot(browser, s, g["x"], g["y"], g["width"], g["height"]))
    heat = decode_png(screenshot(browser, s, a["x"], a["y"], a["width"], a["height"]))
    browser.call("Target.closeTarget", {"targetId": target})
    if colours(grid) < 100 or non_white(grid) < 0.9:
        fail(f"{what}: the image with its grid: {colours(grid)} colours, "
             f"{non_white(grid):.2f} non-white")
    if viridis_like(heat) < 0.15:
        fail(f"{what}: the heatmaps' region is {viridis_like(heat):.3f} coloured")
    print(f"{what}: scrollWidth {m['scrollWidth']}, image {m['image']:.0f} px wide with "
          f"{colours(grid)} colours, 4 heatmaps drawn, {viridis_like(heat):.2f} coloured")
    if save:
        with open(os.path.join(save, f"{name}-{view}.png"), "wb") as f:
            f.write(top_png)


def check_png_decoder(browser, url):
    """The same corner of a page, shot with Chromium's per-row filters and
    with Up on every row, decodes to the same pixels: the one-pass path of
    decode_png agrees with the row-by-row one."""
    target, s = open_tab(browser, url, *WIDTHS["desktop"])
    filtered = screenshot(browser, s, 0, 0, 200, 150, fast=False)
    up = screenshot(browser, s, 0, 0, 200, 150)
    browser.call("Target.closeTarget", {"targetId": target})
    a, b = decode_png(filtered), decode_png(up)
    if a.shape != (150, 200, 3) or not np.array_equal(a, b) or non_white(a) == 0:
        fail(f"the PNG decoder: {a.shape} and {b.shape}, "
             f"{int((a != b).any(axis=2).sum()) if a.shape == b.shape else '-'} pixels differ")


def check_console_check(browser, tmp):
    """A page that logs an error: the check must see it."""
    page = os.path.join(tmp, "logs-an-error.html")
    with open(page, "w") as f:
        f.write("<!DOCTYPE html><title>x</title><script>console.error('seen')</script>")
    target, _ = open_tab(browser, "file://" + page, 390, True)
    browser.call("Target.closeTarget", {"targetId": target})
    if not any("seen" in e for e in console_errors(browser.events)):
        fail("the console check missed a console.error")


def main():
    args = sys.argv[1:]
    save = None
    if "--save" in args:
        i = args.index("--save")
        save = os.path.abspath(args[i + 1])
        del args[i:i + 2]
        os.makedirs(save, exist_ok=True)
    tfenc, data = args
    exe = shutil.which("chromium")
    if not exe:
        print("SKIP: no chromium on the PATH (Debian: apt-get install chromium; "
              "scripts/install-deps.sh installs it)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        long_text = " ".join(["Crème brûlée, the transformer reads every word at once."] * 2)
        pages = {"tutorial": [], "bert_tiny": ["--model", os.path.join(data, "bert_tiny"),
                                               "--layer", "1"],
                 "long": ["--vocab", os.path.join(data, "wordpiece", "vocab.txt"),
                          "--text", long_text]}
        image_pages = {"image": ["--model", os.path.join(data, "image_pipeline", "clip"),
                                 "--image", os.path.join(data, "images", "files",
                                                         "photo_astronaut_200x160.jpg")]}
        for name, extra in {**pages, **image_pages}.items():
            page = os.path.join(tmp, name + ".html")
            r = subprocess.run([tfenc, "explain", *extra, "--html", page],
                               capture_output=True, text=True)
            if r.returncode:
                fail(f"{name}: tfenc explain --html: {r.stderr}")
                return 1
        with open(os.path.join(tmp, "chromium.log"), "w") as log:
            browser = Browser(exe, os.path.join(tmp, "profile"), log)
            try:
                check_console_check(browser, tmp)
                check_png_decoder(browser, "file://" + os.path.join(tmp, "tutorial.html"))
                for name in pages:
                    for view in WIDTHS:
                        check_render(browser, name, "file://" + os.path.join(tmp, name + ".html"),
                                     view, save)
                for name in image_pages:
                    for view in WIDTHS:
                        check_image_render(browser, name,
                                           "file://" + os.path.join(tmp, name + ".html"), view,
                                           save)
            finally:
                browser.close()
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("explain --html in chromium: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
