//! The tokenizer through Rust, into the encoder.
mod common;

use tfenc::{
    Config, EmbedOptions, Encoder, Inputs, Padding, PaddingSide, Pooling, TokenizeOptions,
    Tokenizer, Truncation,
};

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
        .forward(&Inputs::input_ids(&batch.input_ids, batch.batch, batch.seq_len)
            .attention_mask(&batch.attention_mask))
        .unwrap();
    assert!(out.last_hidden_state[(4 + 3) * 16..].iter().all(|&v| v == 0.0)); // padding
}

#[test]
fn embed_gives_unit_vectors_per_text() {
    let tok = Tokenizer::new(common::data_dir().join("wordpiece").join("vocab.txt"), true).unwrap();
    let enc = model_for(&tok);
    let texts = ["I love NLP", "Cr\u{e8}me br\u{fb}l\u{e9}e", "a"];
    let unit = EmbedOptions { pooling: Pooling::Mean, normalize: true, ..Default::default() };
    let v = enc.embed(&texts, &tok, &unit).unwrap();
    assert_eq!(v.len(), 3 * 16);
    for row in v.chunks(16) {
        let norm: f32 = row.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    let alone = enc.embed(&texts[..1], &tok, &unit).unwrap();
    assert!(alone.iter().zip(&v[..16]).all(|(a, b)| (a - b).abs() < 1e-5)); // padding changes nothing
    // batches of 2 (the last of 1), one thread each: the same vectors
    let by_two = enc.embed(&texts, &tok, &EmbedOptions { batch_size: 2, n_threads: 1, ..unit });
    let by_two = by_two.unwrap();
    assert!(by_two.iter().zip(&v).all(|(a, b)| (a - b).abs() < 1e-5));
    let threads = EmbedOptions { n_threads: 1 << 31, ..unit };
    let e = enc.embed(&texts, &tok, &threads).unwrap_err();
    assert_eq!(e.message, "n_threads: 2147483648 does not fit in int32");
    let pooled = |pooling| {
        enc.embed(&texts[..1], &tok, &EmbedOptions { pooling, ..Default::default() }).unwrap()
    };
    let cls = pooled(Pooling::Cls);
    let e = tok.encode_batch(&texts[..1]).unwrap();
    let hidden = enc.forward(&Inputs::input_ids(&e.input_ids, 1, e.seq_len)).unwrap();
    let hidden = hidden.last_hidden_state; // [1, seq_len, 16]
    assert_eq!(cls, hidden[..16].to_vec());
    // each component's maximum over the real tokens (sentence-transformers' "max")
    let max = |k: usize| hidden.chunks(16).map(|row| row[k]).fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(pooled(Pooling::Max), (0..16).map(max).collect::<Vec<f32>>());
}

/// A tokenizer.json fixture's cases (tests/data/tokenizer_json, Hugging
/// Face's tokenizers): the single texts' ids, type ids and decoded texts,
/// read with a few lines of JSON scanning (the crate has no dependencies).
fn fixture_cases(name: &str) -> Vec<(String, Vec<i32>, Vec<i32>, String)> {
    let path = common::data_dir().join("tokenizer_json").join(name).join("check_rust.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let ints = |s: &str| s.split(' ').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect();
            (f[0].to_string(), ints(f[1]), ints(f[2]), f[3].to_string())
        })
        .collect()
}

#[test]
fn tokenizer_json_files_give_the_references_ids_and_decode() {
    for name in ["unigram", "unigram_bytes", "spm_bpe", "qwen3", "bert_uncased"] {
        let dir = common::data_dir().join("tokenizer_json").join(name);
        let tok = Tokenizer::from_file(&dir).unwrap();
        let cases = fixture_cases(name);
        assert!(cases.len() >= 30, "{name}");
        for (text, ids, type_ids, decoded) in cases {
            let e = tok.encode_batch_with(&[&text], None, &TokenizeOptions::default()).unwrap();
            let n = e.lengths[0] as usize;
            assert_eq!(e.input_ids[..n], ids[..], "{name}: {text}");
            assert_eq!(e.token_type_ids[..n], type_ids[..], "{name}: {text}");
            assert_eq!(tok.decode(&ids, false).unwrap(), decoded, "{name}: {text}");
            assert_eq!(e.offset_mapping.len(), 2 * e.seq_len);
        }
    }
}

#[test]
fn truncation_and_padding_as_asked() {
    let tok = Tokenizer::from_file(common::data_dir().join("tokenizer_json").join("bert_uncased")).unwrap();
    let o = TokenizeOptions { truncation: Truncation::LongestFirst, max_length: Some(6), pad_to_multiple_of: Some(4),
                            padding_side: Some(PaddingSide::Left), ..Default::default() };
    let e = tok.encode_batch_with(&["hello world, a long text", "hi"], Some(&["x", "y"]), &o).unwrap();
    assert_eq!((e.seq_len, e.lengths[0]), (8, 6));
    assert_eq!(e.attention_mask[..8], [0, 0, 1, 1, 1, 1, 1, 1]);
    let o = TokenizeOptions { truncation: Truncation::LongestFirst, max_length: Some(10),
                              padding: Padding::MaxLength, ..Default::default() };
    let e = tok.encode_batch_with(&["hello world", "a"], None, &o).unwrap();
    assert_eq!((e.seq_len, e.lengths.clone()), (10, vec![4, 3]));
    let none = TokenizeOptions { truncation: Truncation::OnlyFirst, ..Default::default() };
    let err = tok.encode_batch_with(&["a"], None, &none).err().unwrap();
    assert!(err.to_string().contains("options.max_length: 0"), "{err}");
    assert!(tok.decode(&[1 << 20], false).err().unwrap().to_string().contains("is not a token"));
}

/// One case of check_rust_stride.txt (tests/tokenizer_json/gen_stride.js,
/// Hugging Face's tokenizers): max_length, stride, text, pair, and each
/// overflowing row's ids and type ids.
struct StrideCase {
    max_length: usize,
    stride: usize,
    text: String,
    pair: Option<String>,
    rows: Vec<(Vec<i32>, Vec<i32>)>,
}

fn stride_cases(name: &str) -> Vec<StrideCase> {
    let path = common::data_dir().join("tokenizer_json").join(name).join("check_rust_stride.txt");
    let ints = |s: &str| s.split(' ').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect();
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            StrideCase {
                max_length: f[0].parse().unwrap(),
                stride: f[1].parse().unwrap(),
                text: f[2].to_string(),
                pair: (f[3] != "-").then(|| f[3].to_string()),
                rows: f[4].split(';').map(|r| {
                    let (ids, types) = r.split_once('|').unwrap();
                    (ints(ids), ints(types))
                }).collect(),
            }
        })
        .collect()
}

#[test]
fn overflowing_windows_as_hugging_face_gives_them() {
    for name in ["bert_cased", "qwen3", "roberta", "unigram"] {
        let tok = Tokenizer::from_file(common::data_dir().join("tokenizer_json").join(name)).unwrap();
        let cases = stride_cases(name);
        assert!(cases.len() >= 10, "{name}");
        for c in cases {
            let o = TokenizeOptions { truncation: Truncation::LongestFirst, max_length: Some(c.max_length),
                                      stride: c.stride, return_overflowing_tokens: true,
                                      ..Default::default() };
            let pair = c.pair.as_deref().map(|p| [p]);
            let e = tok.encode_batch_with(&[&c.text], pair.as_ref().map(|p| &p[..]), &o).unwrap();
            assert_eq!(e.batch, c.rows.len(), "{name}: {}", c.text);
            for (r, (ids, types)) in c.rows.iter().enumerate() {
                let (at, n) = (r * e.seq_len, e.lengths[r] as usize);
                assert_eq!(e.input_ids[at..at + n], ids[..], "{name}: {} row {r}", c.text);
                assert_eq!(e.token_type_ids[at..at + n], types[..], "{name}: {} row {r}", c.text);
                assert_eq!(e.overflow_to_sample_mapping[r], 0);
            }
        }
    }
    let tok = Tokenizer::from_file(common::data_dir().join("tokenizer_json").join("roberta")).unwrap();
    let o = TokenizeOptions { truncation: Truncation::LongestFirst, max_length: Some(8), stride: 6,
                              return_overflowing_tokens: true, ..Default::default() };
    let err = tok.encode_batch_with(&["a text"], None, &o).err().unwrap();
    assert!(err.to_string().contains("options.stride: expected below 6"), "{err}");
}

/// Model folders whose tokenizer_config.json and special_tokens_map.json add
/// tokens beyond the tokenizer file's, as transformers adds them
/// (tests/data/tokenizer_folders/check_rust.txt, written by
/// tests/tokenizer_json/gen_folder_config.js): each folder made in a scratch
/// directory from its "file" lines, then every text's and pair's ids and type ids.
#[test]
fn folder_special_tokens_as_transformers_adds_them() {
    let data = common::data_dir();
    let lines = std::fs::read_to_string(data.join("tokenizer_folders").join("check_rust.txt")).unwrap();
    let root = std::env::temp_dir().join(format!("tfenc-rust-folders-{}", std::process::id()));
    let mut checked = 0;
    for line in lines.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let dir = root.join(f[1]);
        if f[0] == "file" {
            std::fs::create_dir_all(&dir).unwrap();
            let base = data.join(f[2]);
            std::fs::copy(&base, dir.join(base.file_name().unwrap())).unwrap();
            std::fs::write(dir.join(f[3]), f[4]).unwrap();
            continue;
        }
        let tok = Tokenizer::from_file(&dir).unwrap();
        let pair = [f[3]];
        let pairs = if f[3] == "-" { None } else { Some(&pair[..]) };
        let e = tok.encode_batch_with(&[f[2]], pairs, &TokenizeOptions::default()).unwrap();
        let ints = |s: &str| s.split(' ').map(|x| x.parse().unwrap()).collect::<Vec<i32>>();
        let n = e.lengths[0] as usize;
        assert_eq!(e.input_ids[..n], ints(f[4])[..], "{}: {}", f[1], f[2]);
        assert_eq!(e.token_type_ids[..n], ints(f[5])[..], "{}: {}", f[1], f[2]);
        checked += 1;
    }
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(checked, 30);
}

/// tokenize leaves out only the special tokens the tokenizer adds (their
/// span of the text is empty): qwen3's tokenizer.json adds none, BERT's
/// [CLS] and [SEP]; an empty text has no tokens.
#[test]
fn tokenize_leaves_out_the_special_tokens_only() {
    let files = common::data_dir().join("tokenizer_json");
    let qwen3 = Tokenizer::from_file(files.join("qwen3").join("tokenizer.json")).unwrap();
    assert_eq!(qwen3.tokenize("").unwrap(), Vec::<String>::new());
    assert_eq!(qwen3.encode("hello world").unwrap(), vec![1510, 874]);
    assert_eq!(qwen3.tokenize("hello world").unwrap(), vec!["hello", "Ġworld"]);
    let bert = Tokenizer::from_file(files.join("bert_uncased")).unwrap();
    assert_eq!(bert.tokenize("Hello world").unwrap(), vec!["hello", "world"]);
    assert_eq!(bert.encode("").unwrap().len(), 2);
    assert_eq!(bert.tokenize("").unwrap(), Vec::<String>::new());
}

/// encode and tokenize give the text's tokens wherever the tokenizer.json
/// pads a row (here on the left, to 8 tokens).
#[test]
fn encode_and_tokenize_leave_out_the_padding() {
    let file = common::data_dir().join("tokenizer_json").join("qwen3").join("tokenizer.json");
    let spec = std::fs::read_to_string(file).unwrap();
    let padding = r#""padding": {"strategy": {"Fixed": 8}, "direction": "Left",
        "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "!"}"#;
    let padded = spec.replacen(r#""padding":null"#, padding, 1);
    assert_ne!(padded, spec);
    let dir = std::env::temp_dir().join(format!("tfenc-rust-left-padded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tokenizer.json"), padded).unwrap();
    let tok = Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(tok.encode_batch(&["hello world"]).unwrap().seq_len, 8);
    assert_eq!(tok.encode("hello world").unwrap(), vec![1510, 874]);
    assert_eq!(tok.tokenize("hello world").unwrap(), vec!["hello", "Ġworld"]);
    // padding_side: None as the file (Left), Right on the right whatever it says
    let side = |padding_side| {
        let o = TokenizeOptions { padding_side, ..Default::default() };
        tok.encode_batch_with(&["hello world"], None, &o).unwrap().input_ids
    };
    assert_eq!(side(None), vec![0, 0, 0, 0, 0, 0, 1510, 874]);
    assert_eq!(side(Some(PaddingSide::Left)), side(None));
    assert_eq!(side(Some(PaddingSide::Right)), vec![1510, 874, 0, 0, 0, 0, 0, 0]);
}

/// A count given is a count: Some(0) is refused, never read as not given
/// (None: the tokenizer's model_max_length, its pad_to_multiple_of).
#[test]
fn counts_given_are_at_least_one() {
    let tok = Tokenizer::from_file(common::data_dir().join("pipelines").join("classifier"));
    let tok = tok.unwrap();
    let cut = |max_length| TokenizeOptions { truncation: Truncation::LongestFirst, max_length,
                                             ..Default::default() };
    let message = |o: &TokenizeOptions| {
        tok.encode_batch_with(&["a b c"], None, o).unwrap_err().message
    };
    assert_eq!(message(&cut(Some(0))), "max_length: expected an integer in [1, 2147483647], got 0");
    assert_eq!(message(&cut(Some(1 << 31))),
               "max_length: expected an integer in [1, 2147483647], got 2147483648");
    let pad = TokenizeOptions { pad_to_multiple_of: Some(0), ..Default::default() };
    assert_eq!(message(&pad), "pad_to_multiple_of: expected an integer in [1, 2147483647], got 0");
    assert_eq!(tok.model_max_length(), 512);
    assert_eq!(tok.encode_batch_with(&["a b c"], None, &cut(None)).unwrap().seq_len, 5);
    assert_eq!(tok.encode_batch_with(&["a b c"], None, &cut(Some(4))).unwrap().seq_len, 4);
}
