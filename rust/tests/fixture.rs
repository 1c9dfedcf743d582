//! The Hugging Face bert_tiny fixture and a PyTorch checkpoint through the
//! Rust API, within 1e-4 (1e-5) of upstream on real tokens.
mod common;

use common::{data_dir, golden_dir, npy_f32, npy_i32};
use tfenc::{Activation, Encoder, Inputs, LoadOptions};

/// max |got - want| over the first len[b] rows of width w of each sequence.
fn real_err(got: &[f32], want: &[f32], lengths: &[i32], t: usize, w: usize) -> f32 {
    let mut worst = 0f32;
    for (b, &n) in lengths.iter().enumerate() {
        for i in 0..n as usize * w {
            let k = b * t * w + i;
            worst = worst.max((got[k] - want[k]).abs());
        }
    }
    worst
}

#[test]
fn bert_tiny_matches_hugging_face() {
    let dir = data_dir().join("bert_tiny");
    let enc = Encoder::from_file(&dir, &LoadOptions::default()).unwrap();
    let cfg = enc.config();
    assert_eq!((cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.vocab_size), (128, 4, 2, 1000));
    let (shape, ids) = npy_i32(dir.join("input_ids.npy"));
    let (_, mask) = npy_i32(dir.join("attention_mask.npy"));
    let (_, types) = npy_i32(dir.join("token_type_ids.npy"));
    let (b, t) = (shape[0], shape[1]);
    let out = enc
        .forward(
            &Inputs::input_ids(&ids, b, t)
                .attention_mask(&mask)
                .token_type_ids(&types)
                .output_hidden_states(true)
                .output_attentions(true),
        )
        .unwrap();
    assert_eq!(out.shape, [3, 37, 128]);
    let lengths = [37, 20, 5];
    let (_, want) = npy_f32(dir.join("last_hidden_state.npy"));
    assert!(real_err(&out.last_hidden_state, &want, &lengths, t, 128) <= 1e-4);
    let (_, want_hidden) = npy_f32(dir.join("hidden_states.npy"));
    let hidden = out.hidden_states.unwrap();
    for l in 0..3 {
        let r = l * b * t * 128..(l + 1) * b * t * 128;
        assert!(real_err(&hidden[r.clone()], &want_hidden[r], &lengths, t, 128) <= 1e-4);
    }
    let (_, want_attn) = npy_f32(dir.join("attentions.npy"));
    let attn = out.attentions.unwrap();
    for l in 0..2 {
        for (s, &n) in lengths.iter().enumerate() {
            for h in 0..4 {
                for i in 0..n as usize {
                    for j in 0..t {
                        let k = ((((l * b + s) * 4 + h) * t) + i) * t + j;
                        assert!((attn[k] - want_attn[k]).abs() <= 1e-4);
                    }
                }
            }
        }
    }
    let (_, want_pooled) = npy_f32(dir.join("pooler_output.npy"));
    let pooled = out.pooler_output.unwrap();
    assert!(pooled.iter().zip(&want_pooled).all(|(a, b)| (a - b).abs() <= 1e-4));
}

#[test]
fn pytorch_checkpoint_with_options() {
    let dir = golden_dir().join("pytorch_encoder_f32_options");
    let opts = LoadOptions {
        n_heads: Some(4),
        activation: Some(Activation::Gelu),
        norm_first: Some(false),
        layer_norm_eps: None,
    };
    assert!(vectors_error(&dir, &opts) <= 1e-5);
}

/// A fixture of model.safetensors, x.npy, lengths.npy and out.npy: the
/// largest error of the model's output on x over real tokens.
fn vectors_error(dir: &std::path::Path, opts: &LoadOptions) -> f32 {
    let enc = Encoder::from_file(dir.join("model.safetensors"), opts).unwrap();
    let (shape, x) = npy_f32(dir.join("x.npy"));
    let (_, lengths) = npy_i32(dir.join("lengths.npy"));
    let (b, t, d) = (shape[0], shape[1], shape[2]);
    let mask: Vec<i32> =
        (0..b * t).map(|k| ((k % t) < lengths[k / t] as usize) as i32).collect();
    let out = enc.forward(&Inputs::input_embeds(&x, b, t).attention_mask(&mask)).unwrap();
    let (_, want) = npy_f32(dir.join("out.npy"));
    real_err(&out.last_hidden_state, &want, &lengths, t, d)
}

#[test]
fn tensors_and_save_round_trip() {
    let mut cfg = tfenc::Config::default();
    cfg.d_model = 16;
    cfg.n_heads = 2;
    cfg.d_ff = 24;
    cfg.vocab_size = 20;
    let mut enc = Encoder::new(&cfg).unwrap();
    let names = enc.tensor_names();
    assert_eq!(names[0], "embed.token.weight");
    let w = enc.tensor("layers.0.attn.q.weight").unwrap();
    assert_eq!(w.shape, vec![16, 16]);
    let doubled: Vec<f32> = w.data.iter().map(|v| v * 2.0).collect();
    enc.set_tensor("layers.0.attn.q.weight", &doubled, &[16, 16]).unwrap();
    assert_eq!(enc.tensor("layers.0.attn.q.weight").unwrap().data, doubled);
    let path = std::env::temp_dir().join(format!("tfenc-rust-{}.safetensors", std::process::id()));
    enc.save(&path).unwrap();
    let back = Encoder::from_file(&path, &LoadOptions::default()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.config(), enc.config());
    let ids = [1, 2, 3];
    let inputs = Inputs::input_ids(&ids, 1, 3);
    let (a, b) = (enc.forward(&inputs).unwrap(), back.forward(&inputs).unwrap());
    assert_eq!(a.last_hidden_state, b.last_hidden_state);
}

/// tests/encoder_pieces's fixtures (rotary, ALiBi, gated feed-forward blocks,
/// bias-free layers, local attention, relative position bias) against their
/// float64 references.
#[test]
fn modern_pieces_match_their_references() {
    let root = golden_dir().parent().unwrap().join("encoder_pieces");
    let cases = std::fs::read_to_string(root.join("cases.txt")).unwrap();
    for case in cases.split_whitespace() {
        let err = vectors_error(&root.join(case), &LoadOptions::default());
        assert!(err <= 1e-5, "{}: error {}", case, err);
    }
    let relative = root.join("relative_window").join("model.safetensors");
    let cfg = Encoder::from_file(&relative, &LoadOptions::default()).unwrap().config();
    assert_eq!((cfg.relative_buckets, cfg.relative_max_distance), (10, 12));
    let mut bad = cfg.clone();
    bad.relative_max_distance = 2;
    let err = Encoder::new(&bad).err().unwrap();
    assert!(err.message.contains("config.relative_max_distance: expected 0 or more than \
                                   relative_buckets / 4 = 2"), "{}", err.message);
}
