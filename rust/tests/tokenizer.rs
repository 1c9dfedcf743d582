//! The tokenizer through Rust, into the encoder.
mod common;

use tfenc::{Config, Encoder, Inputs, Tokenizer};

#[test]
fn tokenizes_like_bert_and_feeds_the_encoder() {
    let tok = Tokenizer::new(common::data_dir().join("wordpiece").join("vocab.txt"), true).unwrap();
    assert_eq!(tok.vocab_size(), 6841);
    assert_eq!(tok.encode("Hello world").unwrap(), vec![12, 576, 577, 13]);
    assert_eq!(tok.tokenize("Hello world").unwrap(), vec!["hello", "world"]);
    let batch = tok.encode_batch(&["hello world", "a"]).unwrap();
    assert_eq!((batch.batch, batch.seq_len), (2, 4));
    assert_eq!(batch.attention_mask, vec![1, 1, 1, 1, 1, 1, 1, 0]);
    // an upstream case (cases.json): the emoji is [UNK]
    assert_eq!(tok.encode("\u{1F600} emoji").unwrap(), vec![12, 11, 83, 343, 345, 340, 339, 13]);

    let mut cfg = Config::default();
    cfg.d_model = 16;
    cfg.n_heads = 2;
    cfg.d_ff = 16;
    cfg.vocab_size = tok.vocab_size();
    let enc = Encoder::new(&cfg).unwrap();
    let out = enc
        .forward(&Inputs::ids(&batch.ids, batch.batch, batch.seq_len).attention_mask(&batch.attention_mask))
        .unwrap();
    assert!(out.last_hidden_state[(4 + 3) * 16..].iter().all(|&v| v == 0.0)); // padding
}
