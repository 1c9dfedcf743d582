//! Hugging Face families beside BERT through `Encoder::from_file`: the
//! folders of tests/data/families (RoBERTa, DistilBERT, ModernBERT, ELECTRA with and without
//! embeddings_project, NomicBERT, GTE, JinaBERT v2, MPNet) within 1e-5 of their
//! float64 references (tests/data/gen_families.py) on real tokens.
mod common;

use common::{data_dir, npy_f32, npy_i32};
use tfenc::{Encoder, Inputs, LoadOptions};

fn expect_matches(name: &str, position_offset: usize, n_token_types: usize) {
    let dir = data_dir().join("families").join(name);
    let enc = Encoder::from_file(&dir, &LoadOptions::default()).unwrap();
    let cfg = enc.config();
    assert_eq!((cfg.position_offset, cfg.n_token_types), (position_offset, n_token_types));
    let (shape, ids) = npy_i32(dir.join("input_ids.npy"));
    let (_, mask) = npy_i32(dir.join("attention_mask.npy"));
    let (_, want) = npy_f32(dir.join("last_hidden_state.npy"));
    let inputs = Inputs::input_ids(&ids, shape[0], shape[1]).attention_mask(&mask);
    let out = enc.forward(&inputs).unwrap();
    let d = cfg.d_model;
    for (k, (&got, &w)) in out.last_hidden_state.iter().zip(&want).enumerate() {
        let real = mask[k / d] != 0;
        assert!(!real || (got - w).abs() <= 1e-5, "{}: element {}: got {}, want {}", name, k, got, w);
    }
}

#[test]
fn roberta_matches_reference() {
    expect_matches("roberta", 2, 1);
}

#[test]
fn distilbert_matches_reference() {
    expect_matches("distilbert", 0, 0);
}

#[test]
fn modernbert_matches_reference() {
    expect_matches("modernbert", 0, 0);
}

#[test]
fn electra_matches_reference() {
    expect_matches("electra", 0, 2);
}

#[test]
fn nomic_bert_matches_reference() {
    expect_matches("nomic_bert", 0, 2);
}

#[test]
fn gte_matches_reference() {
    expect_matches("gte", 0, 0);
}

#[test]
fn jina_bert_matches_reference() {
    expect_matches("jina_bert", 0, 2);
}

#[test]
fn jina_code_matches_reference() {
    expect_matches("jina_code", 0, 2);
    let dir = data_dir().join("families").join("jina_code");
    let cfg = Encoder::from_file(&dir, &LoadOptions::default()).unwrap().config();
    assert_eq!((cfg.qk_norm, cfg.add_norm1b), (true, true));
}

#[test]
fn mpnet_matches_reference() {
    expect_matches("mpnet", 2, 0);
    let dir = data_dir().join("families").join("mpnet");
    let cfg = Encoder::from_file(&dir, &LoadOptions::default()).unwrap().config();
    assert_eq!((cfg.relative_buckets, cfg.relative_max_distance), (32, 0));
}

#[test]
fn electra_with_embeddings_project_matches_reference() {
    expect_matches("electra_small", 0, 2);
    let enc = Encoder::from_file(data_dir().join("families").join("electra_small"), &LoadOptions::default()).unwrap();
    assert_eq!((enc.config().d_model, enc.config().embedding_dim), (16, 8));
}
