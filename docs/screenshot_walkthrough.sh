#!/bin/sh
# screenshot_walkthrough.sh [BUILD_DIR] — redraws docs/explain_html.png,
# docs/cli.md's picture of `tfenc explain --html`, and docs/explain_image.png,
# docs/images.md's picture of `tfenc explain --image --html`: the
# explain-html-browser test's own renders of the tutorial's page and of the
# CLIP test folder's on photo_astronaut_200x160.jpg (headless Chromium, 1280
# px wide, the page's top 1600 px), kept. BUILD_DIR (default: build) holds tools/tfenc.
# Exits 77 where chromium is not installed, as the test does.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/tests/check_explain_html_browser.py" "$build/tools/tfenc" \
    "$root/tests/data" --save "$tmp"
cp "$tmp/tutorial-desktop.png" "$root/docs/explain_html.png"
cp "$tmp/image-desktop.png" "$root/docs/explain_image.png"
echo "wrote $root/docs/explain_html.png and $root/docs/explain_image.png"
