"""folders.py — the model folders of cases.json (written by
tests/tokenizer_json/gen_folder_config.js) made in a scratch directory, for
the Python checks of tfenc tokenize and of the binding; the C suite
test_tokenizer_folders.c makes them the same way."""
import json
import os


def cases(data):
    """cases.json's folders; data is tests/data."""
    with open(os.path.join(data, "tokenizer_folders", "cases.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


def make_folder(data, case, where):
    """Writes case's folder into the directory where: its base file (its
    added_tokens dropped when the case says) and its JSON files."""
    base = os.path.join(data, case["base"])
    with open(base, encoding="utf-8") as f:
        text = f.read()
    if case["drop_added"]:
        j = json.loads(text)
        j["added_tokens"] = []
        text = json.dumps(j, ensure_ascii=False)
    with open(os.path.join(where, os.path.basename(base)), "w", encoding="utf-8") as f:
        f.write(text)
    for name, body in case["files"].items():
        with open(os.path.join(where, name), "w", encoding="utf-8") as f:
            json.dump(body, f, ensure_ascii=False)
