#!/usr/bin/python3
"""check_tokenize.py TFENC DATA_DIR — `tfenc tokenize` against the
tokenizer.json fixtures' references (tests/data/tokenizer_json/*/cases.json,
Hugging Face's tokenizers): for every file, its single-line texts through
--file and --json give the reference's ids and type ids (and, for the
WordPiece files, its offsets in code points); the plain output is the same
ids; pairs through --pair; --max-length and --stride give every window of
Hugging Face's overflowing tokens (stride.json, tests/tokenizer_json/
gen_stride.js) a line; a model folder's tokenizer_config.json and
special_tokens_map.json add their tokens (tests/data/tokenizer_folders,
gen_folder_config.js: ids, type ids and offsets of every text and pair);
`--` lets a text start with '-'; a bad tokenizer
path fails with a message and status 1, a missing --tokenizer (or --stride
without --max-length) with 2."""
import json
import os
import subprocess
import sys
import tempfile

tfenc, data = sys.argv[1], os.path.join(sys.argv[2], "tokenizer_json")
sys.path.insert(0, os.path.join(sys.argv[2], "tokenizer_folders"))
import folders  # noqa: E402  (tests/data/tokenizer_folders/folders.py)


def run(*args):
    return subprocess.run([tfenc, "tokenize", *args], capture_output=True, text=True)


def check_windows(name, path):
    """name's stride.json cases of one setting (LongestFirst, Right, a
    stride), its single texts in one call, then one pair, window for window."""
    stride = os.path.join(data, name, "stride.json")
    if not os.path.exists(stride):
        return 0
    cases = [c for c in json.load(open(stride, encoding="utf-8"))["cases"]
             if c["strategy"] == "LongestFirst" and c["direction"] == "Right" and "rows" in c
             and c["stride"] > 0 and "\n" not in c["text"] + c.get("pair", "")]
    first = cases[0]
    setting = [c for c in cases if (c["max_length"], c["stride"]) ==
               (first["max_length"], first["stride"])]
    singles = [c for c in setting if "pair" not in c]
    pair = next(c for c in setting if "pair" in c)
    args = ["--max-length", str(first["max_length"]), "--stride", str(first["stride"]), "--json"]
    for group, extra in ((singles, []), ([pair], ["--pair", pair["pair"]])):
        out = run("--tokenizer", path, *args, *extra, "--", *(c["text"] for c in group))
        assert out.returncode == 0, (name, out.stderr)
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        want = [(i, r) for i, c in enumerate(group) for r in c["rows"]]
        assert len(rows) == len(want), (name, len(rows), len(want))
        for got, (i, r) in zip(rows, want):
            assert got["text"] == i and got["ids"] == r["ids"], (name, group[i]["text"])
            assert got["type_ids"] == r["type_ids"] and got["offsets"] == r["offsets"], name
    return len(singles) + 1


def check_folders():
    """Every text of every folder in one call, then each pair."""
    checked = 0
    for case in folders.cases(sys.argv[2]):
        with tempfile.TemporaryDirectory() as where:
            folders.make_folder(sys.argv[2], case, where)
            singles = [e for e in case["encodings"] if e["pair"] is None]
            out = run("--tokenizer", where, "--json", "--", *[e["text"] for e in singles])
            assert out.returncode == 0, (case["name"], out.stderr)
            for e, line in zip(singles, out.stdout.splitlines(), strict=True):
                got = json.loads(line)
                assert [got["ids"], got["type_ids"], got["offsets"]] == \
                    [e["ids"], e["type_ids"], e["offsets"]], (case["name"], e["text"])
                checked += 1
            for e in (e for e in case["encodings"] if e["pair"] is not None):
                got = json.loads(run("--tokenizer", where, "--json", "--pair", e["pair"], "--",
                                     e["text"]).stdout)
                assert [got["ids"], got["type_ids"]] == [e["ids"], e["type_ids"]], e
                checked += 1
    return checked


def main():
    checked = windows = 0
    for name in sorted(os.listdir(data)):
        cases = json.load(open(os.path.join(data, name, "cases.json"), encoding="utf-8"))["cases"]
        single = [c for c in cases if "pair" not in c and c["text"] and "\n" not in c["text"]
                  and "\r" not in c["text"]][:60]
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
            f.write("".join(c["text"] + "\n" for c in single))
        path = os.path.join(data, name)  # the folder: its tokenizer.json
        out = run("--tokenizer", path, "--json", "--file", f.name)
        plain = run("--tokenizer", path, "--file", f.name)
        os.unlink(f.name)
        assert out.returncode == 0 and plain.returncode == 0, (name, out.stderr, plain.stderr)
        lines, plain_lines = out.stdout.splitlines(), plain.stdout.splitlines()
        assert len(lines) == len(single) == len(plain_lines), (name, len(lines), len(single))
        for c, line, ids in zip(single, lines, plain_lines):
            got = json.loads(line)
            assert got["ids"] == c["ids"] and got["type_ids"] == c["type_ids"], (name, c["text"])
            assert [int(i) for i in ids.split()] == c["ids"], (name, c["text"])
            assert len(got["tokens"]) == len(got["ids"]) == len(got["offsets"])
            if name.startswith("bert"):
                assert got["offsets"] == c["offsets"], (name, c["text"], got["offsets"])
            checked += 1
        pair = next(c for c in cases if "pair" in c and "\n" not in c["text"] + c["pair"])
        got = json.loads(run("--tokenizer", path, "--json", "--pair", pair["pair"], "--",
                             pair["text"]).stdout)
        assert got["ids"] == pair["ids"] and got["type_ids"] == pair["type_ids"], (name, pair)
        windows += check_windows(name, path)
    dash = run("--tokenizer", os.path.join(data, "bert_uncased"), "--", "-x", "--help")
    assert dash.returncode == 0 and len(dash.stdout.splitlines()) == 2, dash
    bad = run("--tokenizer", os.path.join(data, "no_such_file.json"), "x")
    assert bad.returncode == 1 and "no_such_file.json" in bad.stderr, bad
    assert run("x").returncode == 2
    lone = run("--tokenizer", os.path.join(data, "bert_uncased"), "--stride", "2", "x")
    assert lone.returncode == 2 and "--max-length" in lone.stderr, lone
    assert windows >= 15, windows
    in_folders = check_folders()
    assert in_folders >= 40, in_folders
    print(f"tfenc tokenize: {checked} texts of {len(os.listdir(data))} files as the references, "
          f"{windows} texts' overflowing windows, {in_folders} texts and pairs of model folders "
          f"with their tokenizer_config.json")


main()
