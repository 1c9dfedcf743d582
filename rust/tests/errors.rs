//! Errors: Rust-side shape checks before C, and the library's statuses and
//! messages.
mod common;

use tfenc::{Config, Encoder, Inputs, LoadOptions, Position, Status, Tokenizer};

/// d_model 8, 2 heads, d_ff 8, 1 layer, unbounded sinusoidal positions.
fn small_config(vocab: usize) -> Config {
    Config { d_model: 8, n_heads: 2, d_ff: 8, vocab_size: vocab, ..Config::default() }
}

fn small(vocab: usize) -> Encoder {
    Encoder::new(&small_config(vocab)).unwrap()
}

#[test]
fn slices_are_checked_before_the_library_sees_them() {
    let enc = small(10);
    let e = enc.forward(&Inputs::input_ids(&[1, 2, 3], 2, 2)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "input_ids: expected 4 values (batch x seq_len), got 3");
    let e = enc.forward(&Inputs::input_ids(&[1, 2], 1, 2).attention_mask(&[1])).unwrap_err();
    assert!(e.message.starts_with("attention_mask: expected 2 values"));
    let e = enc.forward(&Inputs { batch: 1, seq_len: 1, ..Inputs::default() }).unwrap_err();
    assert_eq!(e.message, "pass exactly one of input_ids and input_embeds");
    let mut enc = enc;
    let e = enc.set_tensor("layers.0.attn.q.weight", &[0.0; 3], &[2, 2]).unwrap_err();
    assert!(e.message.contains("3 values do not make the shape [2, 2]"));
}

#[test]
fn library_errors_carry_the_message() {
    let mut enc = small(10);
    let e = enc.forward(&Inputs::input_ids(&[1, 10], 1, 2)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "token id 10 at [0,1] is outside the vocabulary (10)");
    assert_eq!(e.to_string(), "TF_ERR_INVALID_ARGUMENT: token id 10 at [0,1] is outside the vocabulary (10)");
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
    assert_eq!(e.status, Status::File);
    let bad = common::data_dir().join("malformed").join("gap_between_tensors.safetensors");
    let e = Encoder::from_file(bad, &LoadOptions::default()).err().unwrap();
    assert_eq!(e.status, Status::Format);
    assert!(e.message.contains("belong to no tensor"));
    let e = Tokenizer::new("/nonexistent/vocab.txt", true).err().unwrap();
    assert_eq!(e.status, Status::File);
}

#[test]
fn a_sequence_past_max_positions_is_an_error_before_any_allocation() {
    // [1, 1, 2, 100000, 100000] attention weights would be 80 GB.
    let ids = vec![1; 100_000];
    for position in [Position::Learned, Position::Sinusoidal] {
        let cfg = Config { position, max_positions: 16, ..small_config(10) };
        let enc = Encoder::new(&cfg).unwrap();
        let e = enc.forward(&Inputs::input_ids(&ids, 1, 100_000).output_attentions(true));
        let e = e.unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument);
        assert_eq!(e.message, "sequence length 100000 exceeds max_positions 16");
        let out = enc.forward(&Inputs::input_ids(&ids[..16], 1, 16).output_attentions(true));
        let out = out.unwrap();
        assert_eq!(out.attentions.unwrap().len(), 2 * 16 * 16);
    }
    // rotary and ALiBi positions: max_positions is the trained length, not a bound
    for position in [Position::Rotary, Position::Alibi] {
        let cfg = Config { position, max_positions: 16, ..small_config(10) };
        let enc = Encoder::new(&cfg).unwrap();
        let out = enc.forward(&Inputs::input_ids(&ids[..20], 1, 20)).unwrap();
        assert_eq!(out.last_hidden_state.len(), 20 * cfg.d_model);
    }
}

#[test]
fn outputs_larger_than_memory_are_an_error_not_an_abort() {
    // unbounded sinusoidal positions; attentions [1, 1, 2, 2^23, 2^23] are
    // 2^49 bytes, more than a 47-bit address space holds
    let enc = small(10);
    let t = 1 << 23;
    let ids = vec![1; t];
    let e = enc.forward(&Inputs::input_ids(&ids, 1, t).output_attentions(true)).unwrap_err();
    assert_eq!(e.status, Status::OutOfMemory);
    assert_eq!(e.message, "attentions: [1, 1, 2, 8388608, 8388608] floats do not fit in memory");
}

#[test]
fn sizes_that_overflow_are_errors_not_panics() {
    let vectors_model = small(0);
    let e = vectors_model.forward(&Inputs::input_embeds(&[], 1 << 31, 1 << 30)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "batch: 2147483648 does not fit in int32");
    let e = vectors_model.forward(&Inputs::input_embeds(&[], 1 << 30, 1 << 30)).unwrap_err();
    assert_eq!(
        e.message,
        "batch 1073741824 x seq_len 1073741824 = 1152921504606846976 tokens exceeds the limit of 2147483647"
    );
    let mut enc = small(10);
    let e = enc.set_tensor("layers.0.attn.q.weight", &[], &[usize::MAX, 2]).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "layers.0.attn.q.weight: [18446744073709551615, 2] elements overflow usize");
    let e = enc.set_tensor("layers.0.attn.q.weight", &[], &[usize::MAX, 0]).unwrap_err();
    assert_eq!(e.message, "layers.0.attn.q.weight dims[0]: 18446744073709551615 does not fit in int64");
}
