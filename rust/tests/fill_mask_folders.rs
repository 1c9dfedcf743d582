//! FillMask on every *ForMaskedLM folder of tests/data/mlm (gen_mlm.py: laid
//! out as bert-base-uncased, roberta-base, xlm-roberta-base,
//! distilbert-base-uncased, ModernBERT-base and an ELECTRA generator; tied
//! and untied decoders): tokens, token_str and sequence equal to the float64
//! references (expected_fill_mask.bin, written beside expected.json), scores
//! within 1e-5; and the refusals.
mod common;

use common::data_dir;
use tfenc::{FillMask, Status};

const FOLDERS: [&str; 8] = [
    "bert_base_uncased",
    "bert_untied",
    "distilbert_base_uncased",
    "electra_generator",
    "roberta_base",
    "roberta_untied",
    "xlm_roberta_base",
    "modernbert_base",
];
const TOP_K: usize = 5; // gen_mlm.py's

/// expected_fill_mask.bin's NUL-terminated fields.
fn fields(name: &str) -> Vec<String> {
    let bytes = std::fs::read(data_dir().join("mlm").join(name).join("expected_fill_mask.bin"))
        .unwrap();
    let mut out: Vec<String> =
        bytes.split(|&b| b == 0).map(|t| String::from_utf8(t.to_vec()).unwrap()).collect();
    out.pop(); // after the last NUL
    out
}

#[test]
fn predictions_match_the_reference() {
    for name in FOLDERS {
        let fill = FillMask::from_dir(data_dir().join("mlm").join(name)).unwrap();
        let want = fields(name);
        let mut at = want.iter();
        while let Some(text) = at.next() {
            let masks: usize = at.next().unwrap().parse().unwrap();
            let got = fill.fill(text, TOP_K).unwrap();
            assert_eq!(got.len(), masks, "{}: {:?}", name, text);
            for row in &got {
                assert_eq!(row.len(), TOP_K);
                for p in row {
                    let token: i32 = at.next().unwrap().parse().unwrap();
                    let score: f64 = at.next().unwrap().parse().unwrap();
                    assert_eq!(p.token, token, "{}: {:?}", name, text);
                    assert!((p.score as f64 - score).abs() <= 1e-5, "{}: {} vs {}", name,
                            p.score, score);
                    assert_eq!(&p.token_str, at.next().unwrap());
                    assert_eq!(&p.sequence, at.next().unwrap());
                }
            }
        }
    }
}

#[test]
fn refusals() {
    let fill = FillMask::from_dir(data_dir().join("mlm").join("bert_base_uncased")).unwrap();
    let e = fill.fill("the cat sat", 5).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("text: no mask_token ([MASK]) found on the input"), "{}", e.message);
    assert!(fill.fill("the [MASK]", 0).unwrap_err().message.contains("top_k"));
    let e = FillMask::from_dir(data_dir().join("pipelines").join("cross_encoder")).err().unwrap();
    assert!(e.message.contains("the folder's kind is cross-encoder; FillMask reads fill-mask folders"),
            "{}", e.message);
}
