"""Model folders whose tokenizer_config.json and special_tokens_map.json
name tokens beyond the tokenizer file's, through Python, against
tokenizers with transformers' additions (tests/data/tokenizer_folders,
written by tests/tokenizer_json/gen_folder_config.js)."""
import os
import sys

import pytest

import tfenc
from conftest import DATA

sys.path.insert(0, os.path.join(DATA, "tokenizer_folders"))
import folders  # noqa: E402  (tests/data/tokenizer_folders/folders.py)

CASES = folders.cases(DATA)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_folder_matches_transformers(case, tmp_path):
    folders.make_folder(DATA, case, str(tmp_path))
    tok = tfenc.Tokenizer.from_file(tmp_path)
    for e in case["encodings"]:
        batch = tok([e["text"]], None if e["pair"] is None else [e["pair"]],
                    return_offsets_mapping=True)
        n = len(e["ids"])
        assert batch["input_ids"][0].tolist() == e["ids"], e["text"]
        assert batch["token_type_ids"][0].tolist() == e["type_ids"], e["text"]
        if e["pair"] is None:  # offsets into the text (a pair's are into either)
            assert batch["offset_mapping"][0, :n].tolist() == e["offsets"], e["text"]
    for token in case["added"]:
        assert tok.id_to_token(tok.token_to_id(token)) == token
    assert tok.model_max_length == case["model_max_length"]
