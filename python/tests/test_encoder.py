"""The Encoder through Python: Hugging Face's bert_tiny numbers, PyTorch's
golden fixtures through vector input with padding and causal masks,
checkpoints, tensors by name, save/load, tracing."""
import json
import os

import numpy as np
import pytest

import tfenc
from tfenc.encoder import _c_array
from conftest import DATA, GOLDEN


def real_err(got, want, lengths):
    return max(float(np.abs(got[b, :n] - want[b, :n]).max()) for b, n in enumerate(lengths))


def test_bert_tiny_matches_hugging_face(bert_dir):
    enc = tfenc.Encoder.from_file(bert_dir)
    load = lambda n: np.load(os.path.join(bert_dir, n + ".npy"))
    out = enc(load("input_ids"), attention_mask=load("attention_mask"),
              token_type_ids=load("token_type_ids"), output_hidden_states=True,
              output_attentions=True)
    lengths = load("attention_mask").sum(1)
    assert list(lengths) == [37, 20, 5]
    assert real_err(out.last_hidden_state, load("last_hidden_state"), lengths) <= 1e-4
    hidden, attentions = load("hidden_states"), load("attentions")
    assert len(out.hidden_states) == 3 and len(out.attentions) == 2
    for l in range(3):
        assert real_err(out.hidden_states[l], hidden[l], lengths) <= 1e-4
    for l in range(2):  # rows of real queries (upstream also computed padded ones)
        assert out.attentions[l].shape == (3, 4, 37, 37)
        for b, n in enumerate(lengths):
            assert np.abs(out.attentions[l][b, :, :n] - attentions[l][b, :, :n]).max() <= 1e-4
    assert np.abs(out.pooler_output - load("pooler_output")).max() <= 1e-4
    assert not out.last_hidden_state[2, 5:].any()  # padding is 0


def golden_cases():
    with open(os.path.join(GOLDEN, "cases.txt")) as f:
        return f.read().split()


@pytest.mark.parametrize("case", golden_cases())
def test_vectors_with_padding_and_causal_masks_match_pytorch(case):
    d = os.path.join(GOLDEN, case)
    meta = dict(line.split() for line in open(os.path.join(d, "meta.txt")))
    enc = tfenc.Encoder(int(meta["d_model"]), int(meta["n_heads"]), int(meta["d_ff"]),
                        int(meta["n_layers"]), position="none",
                        norm_first=meta["norm_placement"] == "1",
                        final_norm=meta["final_norm"] == "1",
                        activation=["gelu", "gelu_tanh", "relu"][int(meta["activation"])],
                        layer_norm_eps=float(meta["layer_norm_eps"]))
    for name in enc.keys():
        enc[name] = np.load(os.path.join(d, "weights", name + ".npy"))
    x, lengths = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "lengths.npy"))
    padding = np.arange(x.shape[1])[None, :] >= lengths[:, None]
    out = enc(input_embeds=x, key_padding_mask=padding, causal=meta["causal"] == "1")
    assert real_err(out.last_hidden_state, np.load(os.path.join(d, "out.npy")), lengths) <= 1e-5


def test_pytorch_checkpoint_with_overrides():
    d = os.path.join(GOLDEN, "pytorch_encoder_f32_options")
    enc = tfenc.Encoder.from_file(os.path.join(d, "model.safetensors"), n_heads=4,
                                  activation="gelu", norm_first=False)
    x, lengths = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "lengths.npy"))
    padding = np.arange(x.shape[1])[None, :] >= lengths[:, None]
    out = enc(input_embeds=x, key_padding_mask=padding)
    assert real_err(out.last_hidden_state, np.load(os.path.join(d, "out.npy")), lengths) <= 1e-5


def test_config_tensors_save_load(tmp_path):
    enc = tfenc.Encoder(32, 4, 64, 2, vocab_size=50, position="learned", max_positions=16,
                        n_token_types=2, embedding_norm=True, pooler=True, seed=3)
    cfg = enc.config
    assert cfg["d_model"] == 32 and cfg["position"] == "learned" and cfg["pooler"] is True
    assert cfg["layer_norm_eps"] == 1e-5 and cfg["activation"] == "gelu"
    assert enc.keys()[:2] == ["embed.token.weight", "embed.position.weight"]
    assert "layers.1.attn.q.weight" in enc and "layers.2.attn.q.weight" not in enc
    w = enc["layers.0.ffn.up.weight"]
    assert w.shape == (64, 32) and w.dtype == np.float32
    enc["layers.0.ffn.up.weight"] = w * 2
    assert np.array_equal(enc["layers.0.ffn.up.weight"], w * 2)
    path = tmp_path / "model.safetensors"
    enc.save(path)
    back = tfenc.Encoder.from_file(path)
    assert back.config == cfg
    for name in enc.keys():
        assert np.array_equal(back[name], enc[name])
    ids = np.array([[1, 2, 3, 4]], np.int32)
    assert np.array_equal(back(ids).last_hidden_state, enc(ids).last_hidden_state)
    assert enc(ids).pooler_output.shape == (1, 32)


def test_no_copy_of_ready_arrays():
    ids = np.zeros((2, 3), np.int32)
    assert _c_array(ids, np.int32, "input_ids", 2) is ids
    x = np.zeros((2, 3, 8), np.float32)
    assert _c_array(x, np.float32, "x", 3) is x
    assert _c_array(ids.astype(np.int64), np.int32, "input_ids", 2) is not ids  # converted


def test_trace_gives_every_intermediate():
    enc = tfenc.Encoder(16, 2, 32, 1, vocab_size=10)
    out = enc(np.array([[1, 2, 3]]), trace=True)
    assert list(out.trace)[:3] == ["embed.token", "embed.position", "embed.sum"]
    assert out.trace["layers.0.attn.q"].shape == (1, 2, 3, 8)
    w = out.trace["layers.0.attn.weights"]
    assert np.allclose(w.sum(-1), 1.0, atol=1e-6)
    assert np.array_equal(out.trace["layers.0.add_norm2"], out.last_hidden_state)


def test_embed_pools_like_numpy(vocab_path):
    tok = tfenc.Tokenizer(vocab_path)
    enc = tfenc.Encoder(32, 4, 64, 1, vocab_size=tok.vocab_size, seed=5)
    texts = ["I love NLP", "Crème brûlée, jalapeño & résumé", "a"]
    batch = tok(texts)
    hidden = enc(batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
    lengths = batch["attention_mask"].sum(1)
    mean = np.stack([hidden[b, :n].mean(0) for b, n in enumerate(lengths)])
    unit = mean / np.linalg.norm(mean, axis=1, keepdims=True)
    assert np.allclose(enc.embed(texts, tok), mean, atol=1e-6)
    assert np.allclose(enc.embed(texts, tok, normalize=True), unit, atol=1e-6)
    assert np.allclose(enc.embed(texts, tok, pooling="cls"), hidden[:, 0], atol=1e-6)
    assert np.allclose(enc.embed(texts, tok, batch_size=1), mean, atol=1e-5)  # unpadded
    with pytest.raises(ValueError, match="pooling: expected one of"):
        enc.embed(texts, tok, pooling="median")
