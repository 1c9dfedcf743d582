//! Model folders through the pipeline types: the sentence-transformers,
//! cross-encoder and classifier folders of tests/data/pipelines (BERT) and
//! tests/data/families (RoBERTa with a byte-level BPE tokenizer.json, XLM-R
//! with a Unigram one, DistilBERT, ELECTRA, MPNet with a WordPiece one laid out as
//! all-mpnet-base-v2, ModernBERT's sentence encoder, cross-encoder and classifier,
//! BERT and RoBERTa token classifiers) within 1e-5 of the float64
//! references of their generators (expected_texts.bin with expected_out.npy or
//! expected_entities.tsv, written beside expected.json).
mod common;

use std::path::PathBuf;

use common::{data_dir, npy_f32};
use tfenc::{
    Aggregation, Classifier, CrossEncoder, EncodeOptions, PipelineOptions, SentenceEncoder, Status,
    TokenClassifier,
};

/// (the folder, its inputs, the expected rows and their width).
fn fixture(dir: &str) -> (PathBuf, Vec<String>, Vec<f32>, usize) {
    let dir = data_dir().join(dir);
    let bytes = std::fs::read(dir.join("expected_texts.bin")).unwrap();
    let mut texts: Vec<String> =
        bytes.split(|&b| b == 0).map(|t| String::from_utf8(t.to_vec()).unwrap()).collect();
    texts.pop(); // after the last NUL
    let (shape, out) = npy_f32(dir.join("expected_out.npy"));
    (dir, texts, out, shape[1])
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{}", what);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-5, "{} [{}]: got {}, want {}", what, i, g, w);
    }
}

#[test]
fn sentence_encoder_mean_normalize_dimensions() {
    let (dir, texts, want, dim) = fixture("pipelines/st_mean_norm");
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    assert_eq!((enc.dim(), enc.max_seq_length(), dim), (16, 12, 16));
    assert_eq!(enc.similarity_fn_name(), "cosine");
    assert_eq!(enc.default_prompt_name(), None);
    assert!(enc.prompts().contains(&("query".to_string(), "query: ".to_string())));
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = enc.encode(&texts, &EncodeOptions { batch_size: 2, ..Default::default() }).unwrap();
    assert_eq!((out.dim, out.truncated), (16, 1));
    assert_close(&out.values, &want, "embeddings");
    let cut = enc.encode(&texts[..1], &EncodeOptions { dimensions: 8, ..Default::default() }).unwrap();
    let norm: f32 = cut.row(0).iter().map(|v| v * v).sum();
    assert!(cut.dim == 8 && (norm - 1.0).abs() <= 1e-5);
    let e = enc.encode(&texts[..1], &EncodeOptions { dimensions: 17, ..Default::default() }).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("args.dimensions 17: the model's vectors have 16 dimensions"));
    let e = enc.encode(&texts[..1], &EncodeOptions { prompt_name: Some("doc"), ..Default::default() });
    assert!(e.unwrap_err().message.contains("args.prompt_name \"doc\""));
    let strict = PipelineOptions { truncation_error: true, ..Default::default() };
    let e = SentenceEncoder::with_options(&dir, &strict).unwrap().encode(&texts, &EncodeOptions::default());
    assert!(e.unwrap_err().message.contains("input 4 has more than 12 tokens"));
}

#[test]
fn minilm_max_seq_length_256() {
    let (dir, texts, want, _) = fixture("pipelines/st_minilm");
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    assert_eq!(enc.max_seq_length(), 256);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = enc.encode(&texts, &EncodeOptions::default()).unwrap();
    assert_eq!(out.truncated, 1);
    assert_close(&out.values, &want, "st_minilm");
}

#[test]
fn xlmr_sentence_encoder_with_a_unigram_tokenizer() {
    let (dir, texts, want, dim) = fixture("families/xlmr_st");
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    assert_eq!((enc.dim(), enc.max_seq_length(), dim), (8, 32, 8));
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = enc.encode(&texts, &EncodeOptions::default()).unwrap();
    assert_close(&out.values, &want, "xlmr_st");
}

#[test]
fn nomic_sentence_encoder_laid_out_as_v1_5() {
    let (dir, texts, want, dim) = fixture("families/nomic_st");
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    assert_eq!((enc.dim(), enc.max_seq_length(), dim), (8, 64, 8));
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = enc.encode(&texts, &EncodeOptions::default()).unwrap();
    assert_close(&out.values, &want, "nomic_st");
}

#[test]
fn nomic_matryoshka_layer_norm() {
    // nomic-embed-text-v1.5's recipe against the float64 vectors of
    // expected_matryoshka.npy [texts, 4] (gen_families.py matryoshka)
    let (dir, texts, _, _) = fixture("families/nomic_st");
    let (shape, want) = npy_f32(dir.join("expected_matryoshka.npy"));
    assert_eq!(shape, vec![texts.len(), 4]);
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let opts = EncodeOptions { dimensions: 4, dimensions_layer_norm: true, ..Default::default() };
    let out = enc.encode(&texts, &opts).unwrap();
    assert_eq!(out.dim, 4);
    assert_close(&out.values, &want, "nomic_st matryoshka");
    let plain = enc.encode(&texts, &EncodeOptions { dimensions: 4, ..Default::default() }).unwrap();
    assert!(plain.values.iter().zip(&want).any(|(p, w)| (p - w).abs() > 1e-3));
}

#[test]
fn gte_jina_and_modernbert_sentence_encoders() {
    for name in [
        "families/gte_st",
        "families/jina_st",
        "families/jina_code_st",
        "families/modernbert_st",
    ] {
        let (dir, texts, want, dim) = fixture(name);
        let enc = SentenceEncoder::from_dir(&dir).unwrap();
        assert_eq!((enc.dim(), enc.max_seq_length(), dim), (8, 64, 8));
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let out = enc.encode(&texts, &EncodeOptions::default()).unwrap();
        assert_close(&out.values, &want, name);
    }
}

#[test]
fn mpnet_sentence_encoder_as_all_mpnet_base_v2() {
    let (dir, texts, want, dim) = fixture("families/mpnet_st");
    let enc = SentenceEncoder::from_dir(&dir).unwrap();
    assert_eq!((enc.dim(), enc.max_seq_length(), dim), (16, 384, 16));
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = enc.encode(&texts, &EncodeOptions { batch_size: 3, ..Default::default() }).unwrap();
    assert_eq!(out.truncated, 1);
    assert_close(&out.values, &want, "mpnet_st");
}

#[test]
fn cross_encoders_score_and_rank() {
    for name in [
        "pipelines/cross_encoder",
        "families/roberta_cross_encoder",
        "families/xlmr_cross_encoder",
        "families/modernbert_cross_encoder",
    ] {
        let (dir, texts, want, width) = fixture(name);
        assert_eq!(width, 1);
        let ce = CrossEncoder::from_dir(&dir).unwrap();
        let pairs: Vec<(&str, &str)> = texts.chunks(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
        assert_close(&ce.predict(&pairs, 3).unwrap(), &want, name);
    }
    let (dir, texts, want, _) = fixture("pipelines/cross_encoder");
    let docs: Vec<&str> = texts.chunks(2).map(|p| p[1].as_str()).collect();
    let ce = CrossEncoder::from_dir(&dir).unwrap();
    let ranked = ce.rank(&texts[0], &docs, None, 0).unwrap();
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by(|&a, &b| want[b].total_cmp(&want[a]));
    assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), order);
    // the top_k best, in batches of 1
    let top = ce.rank(&texts[0], &docs, Some(2), 1).unwrap();
    assert_eq!(top.iter().map(|r| r.0).collect::<Vec<_>>(), order[..2]);
    let scores = |r: &[(usize, f32)]| r.iter().map(|r| r.1).collect::<Vec<_>>();
    assert_close(&scores(&top), &scores(&ranked[..2]), "top 2");
    let e = ce.rank(&texts[0], &docs, Some(0), 0).unwrap_err();
    assert_eq!(e.message, "top_k: expected None (every one) or at least 1, got 0");
}

#[test]
fn classifiers_give_label_probabilities() {
    for (name, labels) in [
        ("pipelines/classifier", vec!["negative", "neutral", "positive"]),
        ("families/roberta_classifier", vec!["negative", "neutral", "positive"]),
        ("families/distilbert_classifier", vec!["negative", "positive"]),
        ("families/electra_classifier", vec!["negative", "positive"]),
        ("families/mpnet_classifier", vec!["negative", "neutral", "positive"]),
        ("families/modernbert_classifier", vec!["negative", "neutral", "positive"]),
    ] {
        let (dir, texts, want, width) = fixture(name);
        let clf = Classifier::from_dir(&dir).unwrap();
        assert_eq!(clf.labels(), labels);
        assert_eq!(width, labels.len());
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let rows = clf.predict_proba(&texts, None, 2).unwrap();
        assert_close(&rows.concat(), &want, name);
        let best = &clf.classify(&texts[..1], None, 0).unwrap()[0];
        assert_eq!(best.len(), labels.len());
        assert!(best.windows(2).all(|w| w[0].1 >= w[1].1));
        assert_close(&[best[0].1], &[rows[0].iter().copied().fold(f32::MIN, f32::max)], name);
        let top = clf.classify(&texts[..2], Some(1), 1).unwrap(); // the best label of each
        assert_eq!((top.len(), top[0].as_slice(), top[1].len()), (2, &best[..1], 1));
    }
}

#[test]
fn a_folder_of_another_kind_is_refused() {
    let dir = data_dir().join("pipelines").join("st_dense");
    let e = CrossEncoder::from_dir(&dir).err().unwrap();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.ends_with("st_dense: the folder's kind is embedding; CrossEncoder reads cross-encoder folders"));
    let e = Classifier::from_dir(data_dir().join("pipelines").join("missing")).err().unwrap();
    assert_eq!(e.status, Status::File);
}

/// Each entity of a token classifier folder against its expected_entities.tsv
/// (text, aggregation, label, score, start, end, index, word), by every
/// aggregation.
fn expect_entities(folder: &str) {
    let dir = data_dir().join("families").join(folder);
    let bytes = std::fs::read(dir.join("expected_texts.bin")).unwrap();
    let texts: Vec<String> =
        bytes.split(|&b| b == 0).filter(|t| !t.is_empty()).map(|t| String::from_utf8(t.to_vec()).unwrap()).collect();
    let tsv = std::fs::read_to_string(dir.join("expected_entities.tsv")).unwrap();
    let tc = TokenClassifier::from_dir(&dir).unwrap();
    let all = [Aggregation::None, Aggregation::Simple, Aggregation::First, Aggregation::Average, Aggregation::Max];
    for agg in all {
        for (t, text) in texts.iter().enumerate() {
            let want: Vec<Vec<&str>> = tsv
                .lines()
                .map(|l| l.split('\t').collect::<Vec<_>>())
                .filter(|f| f[0] == t.to_string() && f[1] == agg.name())
                .collect();
            let got = tc.entities(text, agg).unwrap();
            assert_eq!(got.len(), want.len(), "{} {}", agg.name(), text);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.label.as_str(), g.start.to_string(), g.end.to_string()), (w[2], w[4].to_string(), w[5].to_string()));
                assert_eq!(g.word, w[7]);
                assert!((g.score - w[3].parse::<f32>().unwrap()).abs() <= 1e-5);
                assert_eq!(g.index.map_or(-1, |i| i as i64), w[6].parse::<i64>().unwrap());
            }
        }
    }
}

#[test]
fn token_classifier_entities() {
    expect_entities("bert_token_classifier");
}

#[test]
fn roberta_token_classifier_entities_by_byte_level_words() {
    expect_entities("roberta_token_classifier");
}

/// A NUL in a cross-encoder's input is named where the caller put it: the
/// pair and its side, the query or the document.
#[test]
fn cross_encoder_names_a_nul_where_it_is() {
    let ce = CrossEncoder::from_dir(data_dir().join("pipelines").join("cross_encoder")).unwrap();
    let message = |r: tfenc::Result<Vec<f32>>| r.unwrap_err().message;
    assert_eq!(message(ce.predict(&[("q", "p"), ("q\0", "p")], 0)),
               "pairs[1].0: contains a NUL byte");
    assert_eq!(message(ce.predict(&[("q", "p\0")], 0)), "pairs[0].1: contains a NUL byte");
    let rank = |q, documents: &[&str]| ce.rank(q, documents, None, 0).unwrap_err().message;
    assert_eq!(rank("q\0", &["a"]), "query: contains a NUL byte");
    assert_eq!(rank("q", &["a", "b\0"]), "documents[1]: contains a NUL byte");
}

/// A classifier's texts with pairs (second segments, token type 1): one
/// pair per text, each named where it is; the pairs change the input.
#[test]
fn classifier_pairs_are_second_segments() {
    let clf = Classifier::from_dir(data_dir().join("pipelines").join("classifier")).unwrap();
    let alone = clf.predict_proba(&["a", "b"], None, 0).unwrap();
    let paired = clf.predict_proba(&["a", "b"], Some(&["x", "y"]), 0).unwrap();
    assert_eq!(paired.len(), 2);
    for (row, single) in paired.iter().zip(&alone) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() <= 1e-5);
        assert!(row.iter().zip(single).any(|(p, s)| (p - s).abs() > 1e-4));
    }
    let e = clf.predict_proba(&["a", "b"], Some(&["x"]), 0).unwrap_err();
    assert_eq!(e.message, "pairs: expected one for each of the 2 texts, got 1");
    let e = clf.predict_proba(&["a", "b"], Some(&["x", "y\0"]), 0).unwrap_err();
    assert_eq!(e.message, "pairs[1]: contains a NUL byte");
    let e = clf.classify(&["a"], Some(0), 0).unwrap_err();
    assert_eq!(e.message, "top_k: expected None (every one) or at least 1, got 0");
}
