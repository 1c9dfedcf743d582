#!/usr/bin/python3
"""check_tokenize.py TFENC DATA_DIR — `tfenc tokenize` against the
tokenizer.json fixtures' references (tests/data/tokenizer_json/*/cases.json,
Hugging Face's tokenizers): for every file, its single-line texts through
--file and --json give the reference's ids and type ids (and, for the
WordPiece files, its offsets in code points); the plain output is the same
ids; pairs through --pair; `--` lets a text start with '-'; a bad tokenizer
path fails with a message and status 1, a missing --tokenizer with 2."""
import json
import os
import subprocess
import sys
import tempfile

tfenc, data = sys.argv[1], os.path.join(sys.argv[2], "tokenizer_json")


def run(*args):
    return subprocess.run([tfenc, "tokenize", *args], capture_output=True, text=True)


def main():
    checked = 0
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
    dash = run("--tokenizer", os.path.join(data, "bert_uncased"), "--", "-x", "--help")
    assert dash.returncode == 0 and len(dash.stdout.splitlines()) == 2, dash
    bad = run("--tokenizer", os.path.join(data, "no_such_file.json"), "x")
    assert bad.returncode == 1 and "no_such_file.json" in bad.stderr, bad
    assert run("x").returncode == 2
    print(f"tfenc tokenize: {checked} texts of {len(os.listdir(data))} files as the references")


main()
