//! The tokenizer through Rust, into the encoder.
mod common;

use tfenc::{Config, Encoder, Inputs, Pooling, Tokenizer};

/// A small random model over the tokenizer's vocabulary.
fn model_for(tok: &Tokenizer) -> Encoder {
    let mut cfg = Config::default();
    cfg.d_model = 16;
    cfg.n_heads = 2;
    cfg.d_ff = 16;
    cfg.vocab_size = tok.vocab_size();
    Encoder::new(&cfg).unwrap()
}

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

    let enc = model_for(&tok);
    let out = enc
        .forward(&Inputs::ids(&batch.ids, batch.batch, batch.seq_len).attention_mask(&batch.attention_mask))
        .unwrap();
    assert!(out.last_hidden_state[(4 + 3) * 16..].iter().all(|&v| v == 0.0)); // padding
}

#[test]
fn embed_gives_unit_vectors_per_text() {
    let tok = Tokenizer::new(common::data_dir().join("wordpiece").join("vocab.txt"), true).unwrap();
    let enc = model_for(&tok);
    let texts = ["I love NLP", "Cr\u{e8}me br\u{fb}l\u{e9}e", "a"];
    let v = enc.embed(&tok, &texts, Pooling::Mean, true).unwrap();
    assert_eq!(v.len(), 3 * 16);
    for row in v.chunks(16) {
        let norm: f32 = row.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    let alone = enc.embed(&tok, &texts[..1], Pooling::Mean, true).unwrap();
    assert!(alone.iter().zip(&v[..16]).all(|(a, b)| (a - b).abs() < 1e-5)); // padding changes nothing
    let cls = enc.embed(&tok, &texts[..1], Pooling::Cls, false).unwrap();
    let e = tok.encode_batch(&texts[..1]).unwrap();
    let hidden = enc.forward(&Inputs::ids(&e.ids, 1, e.seq_len)).unwrap().last_hidden_state;
    assert_eq!(cls, hidden[..16].to_vec());
}
