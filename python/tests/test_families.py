"""Hugging Face families beside BERT through tfenc.Encoder.from_file: the
folders of tests/data/families against their float64 references
(tests/data/gen_families.py) within 1e-5 on real tokens."""
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA


@pytest.mark.parametrize("name,offset,token_types",
                         [("roberta", 2, 1), ("distilbert", 0, 0), ("modernbert", 0, 0),
                          ("electra", 0, 2), ("nomic_bert", 0, 2), ("gte", 0, 0),
                          ("jina_bert", 0, 2), ("jina_code", 0, 2), ("mpnet", 2, 0),
                          ("electra_small", 0, 2)])
def test_family_matches_reference(name, offset, token_types):
    path = os.path.join(DATA, "families", name)
    ids = np.load(os.path.join(path, "input_ids.npy"))
    mask = np.load(os.path.join(path, "attention_mask.npy"))
    want = np.load(os.path.join(path, "last_hidden_state.npy"))
    with tfenc.Encoder.from_file(path) as enc:
        cfg = enc.config
        assert (cfg["position_offset"], cfg["n_token_types"]) == (offset, token_types)
        got = enc(ids, attention_mask=mask).last_hidden_state
    real = mask.astype(bool)
    assert np.abs(got[real] - want[real]).max() <= 1e-5
    assert not got[~real].any()  # padding is written as zeros


def test_jina_code_norms_are_read():
    """JinaBERT v2's code variant: layer_norm_q / _k and layer_norm_1 read."""
    with tfenc.Encoder.from_file(os.path.join(DATA, "families", "jina_code")) as enc:
        assert (enc.config["qk_norm"], enc.config["add_norm1b"]) == (True, True)
        assert enc["layers.1.attn.k_norm.weight"].shape == (16,)
    with pytest.raises(tfenc.InvalidArgumentError,
                       match=r"config.add_norm1b: 1 needs norm_placement \"post\" \(it is \"pre\"\)"):
        tfenc.Encoder(d_model=8, n_heads=2, d_ff=8, norm_first=True, add_norm1b=True)


def test_mpnet_relative_bias_is_read():
    """MPNet's relative_attention_bias: 32 buckets shared by every layer."""
    with tfenc.Encoder.from_file(os.path.join(DATA, "families", "mpnet")) as enc:
        assert (enc.config["relative_buckets"], enc.config["relative_max_distance"]) == (32, 0)
        assert enc["relative_bias.weight"].shape == (32, 2)


def test_electra_embeddings_project():
    """electra_small: embedding_size 8, hidden_size 16; a bad width refused."""
    with tfenc.Encoder.from_file(os.path.join(DATA, "families", "electra_small")) as enc:
        assert (enc.config["d_model"], enc.config["embedding_dim"]) == (16, 8)
    with pytest.raises(tfenc.InvalidArgumentError,
                       match=r"config.embedding_dim: expected 0..65536, got -1"):
        tfenc.Encoder(d_model=8, n_heads=2, d_ff=8, embedding_dim=-1)


def test_position_offset_is_checked():
    with pytest.raises(tfenc.InvalidArgumentError, match="config.position_offset: expected 0, "
                       "or with learned positions 1..7"):
        tfenc.Encoder(d_model=8, n_heads=2, d_ff=8, vocab_size=10, position="learned",
                      max_positions=8, position_offset=8)
    enc = tfenc.Encoder(d_model=8, n_heads=2, d_ff=8, vocab_size=10, position="learned",
                        max_positions=8, position_offset=2)
    assert enc.config["position_offset"] == 2
