//! Errors: Rust-side shape checks before C, and the library's statuses and
//! messages.
mod common;

use tfenc::{Config, Encoder, Inputs, LoadOptions, Status, Tokenizer};

fn small(vocab: usize) -> Encoder {
    let mut cfg = Config::default();
    cfg.d_model = 8;
    cfg.n_heads = 2;
    cfg.d_ff = 8;
    cfg.vocab_size = vocab;
    Encoder::new(&cfg).unwrap()
}

#[test]
fn slices_are_checked_before_the_library_sees_them() {
    let enc = small(10);
    let e = enc.forward(&Inputs::ids(&[1, 2, 3], 2, 2)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "ids: expected 4 values (batch x seq_len), got 3");
    let e = enc.forward(&Inputs::ids(&[1, 2], 1, 2).attention_mask(&[1])).unwrap_err();
    assert!(e.message.starts_with("attention_mask: expected 2 values"));
    let e = enc.forward(&Inputs { batch: 1, seq_len: 1, ..Inputs::default() }).unwrap_err();
    assert_eq!(e.message, "pass exactly one of ids and vectors");
    let mut enc = enc;
    let e = enc.set_tensor("layers.0.attn.q.weight", &[0.0; 3], &[2, 2]).unwrap_err();
    assert!(e.message.contains("3 values do not make the shape [2, 2]"));
}

#[test]
fn library_errors_carry_the_message() {
    let mut enc = small(10);
    let e = enc.forward(&Inputs::ids(&[1, 10], 1, 2)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "token id 10 at [0,1] is outside the vocabulary (10)");
    assert!(e.to_string().contains("InvalidArgument"));
    let e = enc.set_tensor("layers.0.attn.q.weight", &[0.0; 16], &[2, 8]).unwrap_err();
    assert_eq!(e.status, Status::Shape);
    assert_eq!(e.message, "layers.0.attn.q.weight: expected [8, 8], got [2, 8]");
    let e = enc.tensor("pooler.weight").unwrap_err();
    assert_eq!(e.status, Status::NotFound);
    let mut cfg = Config::default();
    cfg.n_heads = 7;
    let e = Encoder::new(&cfg).err().unwrap();
    assert_eq!(e.message, "config.n_heads: d_model 512 is not divisible by n_heads 7");
    let e = Encoder::from_file("/nonexistent/model.safetensors", &LoadOptions::default()).err().unwrap();
    assert_eq!(e.status, Status::Io);
    let bad = common::data_dir().join("malformed").join("gap_between_tensors.safetensors");
    let e = Encoder::from_file(bad, &LoadOptions::default()).err().unwrap();
    assert_eq!(e.status, Status::Format);
    assert!(e.message.contains("belong to no tensor"));
    let e = Tokenizer::new("/nonexistent/vocab.txt", true).err().unwrap();
    assert_eq!(e.status, Status::Io);
}
