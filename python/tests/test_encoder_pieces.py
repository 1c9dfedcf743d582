"""The modern encoder pieces through Python: tests/encoder_pieces's fixtures (rotary,
ALiBi, gated feed-forward blocks, bias-free layers, local attention, relative
position bias) against their float64 references, and the 0.4.0 config fields'
keywords."""
import os

import numpy as np
import pytest

import tfenc
from conftest import ROOT

MODERN = os.path.join(ROOT, "tests", "encoder_pieces")


def modern_cases():
    with open(os.path.join(MODERN, "cases.txt")) as f:
        return f.read().split()


@pytest.mark.parametrize("case", modern_cases())
def test_encoder_pieces_pieces_match_their_references(case):
    d = os.path.join(MODERN, case)
    enc = tfenc.Encoder.from_file(os.path.join(d, "model.safetensors"))
    x, lengths = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "lengths.npy"))
    padding = np.arange(x.shape[1])[None, :] >= lengths[:, None]
    out = enc(input_embeds=x, key_padding_mask=padding)
    want = np.load(os.path.join(d, "out.npy"))
    err = max(float(np.abs(out.last_hidden_state[b, :n] - want[b, :n]).max())
              for b, n in enumerate(lengths))
    assert err <= 1e-5


def test_new_fields_round_trip_through_the_constructor():
    enc = tfenc.Encoder(32, 4, 48, 3, position="rotary", norm_first=True, bias=False,
                        ffn_gated=True, activation="silu", skip_first_norm1=True, rotary_dim=4,
                        rotary_interleaved=True, rotary_base=160000.0, rotary_base_local=1e4,
                        rotary_ntk_factor=2.0, rotary_ntk_positions=512, attn_window=128,
                        global_every=3, relative_buckets=32, relative_max_distance=256)
    c = enc.config
    assert (c["position"], c["activation"], c["ffn_gated"], c["skip_first_norm1"]) == \
        ("rotary", "silu", True, True)
    assert (c["rotary_dim"], c["rotary_interleaved"], c["attn_window"], c["global_every"]) == \
        (4, True, 128, 3)
    assert (c["rotary_base"], c["rotary_base_local"], c["rotary_ntk_factor"]) == \
        (160000.0, 10000.0, 2.0)
    assert (c["relative_buckets"], c["relative_max_distance"]) == (32, 256)
    assert enc["relative_bias.weight"].shape == (32, 4)
    assert "layers.0.norm1.weight" not in enc.keys()
    assert enc["layers.1.ffn.gate.weight"].shape == (48, 32)
    assert tfenc.Encoder(**c).config == c


def test_a_field_that_needs_another_is_refused_by_name():
    with pytest.raises(tfenc.InvalidArgumentError, match=r"config.global_every: 3 needs an attn_window"):
        tfenc.Encoder(32, 4, 48, global_every=3)


def test_relative_bias_fields_are_checked():
    with pytest.raises(tfenc.InvalidArgumentError,
                       match=r"config.relative_max_distance: 64 needs relative_buckets"):
        tfenc.Encoder(32, 4, 48, relative_max_distance=64)
    with pytest.raises(tfenc.InvalidArgumentError,
                       match=r"config.relative_buckets: expected 0 or an even number in 4..1024"):
        tfenc.Encoder(32, 4, 48, relative_buckets=33)
