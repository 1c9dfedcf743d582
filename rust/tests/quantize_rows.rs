//! tfenc::quantize against tests/data/quantize/expected.json (written by
//! tests/data/gen_quantize.py from sentence-transformers' quantize_embeddings),
//! the precisions' names, and the refusals; hamming_distance against the
//! floats' signs.
mod common;

use tfenc::{
    hamming_distance, hamming_similarity, precision_row_bytes, quantize, Precision, Status,
};

/// One case of expected.json, read from its layout (json.dump, indent=1:
/// a key a line, an array's numbers one a line).
struct Case {
    precision: Precision,
    dim: usize,
    embeddings: Vec<f32>,
    ranges: Option<Vec<f32>>,
    expected: Vec<f64>,
}

/// The numbers of the array `key` in text, or None where it is null.
fn numbers(text: &str, key: &str) -> Option<Vec<f64>> {
    let at = text.find(&format!("\"{}\": ", key)).unwrap_or_else(|| panic!("no {}", key));
    let rest = &text[at + key.len() + 4..];
    if rest.starts_with("null") {
        return None;
    }
    let body = &rest[1..rest.find(']').unwrap()];
    Some(body.split(',').map(|v| v.trim().parse().unwrap()).collect())
}

fn field<'a>(text: &'a str, key: &str) -> &'a str {
    let at = text.find(&format!("\"{}\": ", key)).unwrap_or_else(|| panic!("no {}", key));
    let rest = &text[at + key.len() + 4..];
    rest[..rest.find(|c| c == ',' || c == '\n').unwrap()].trim_matches('"')
}

fn cases() -> Vec<(String, Case)> {
    let path = common::data_dir().join("quantize").join("expected.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
    text.split("\"name\": ")
        .skip(1)
        .map(|part| {
            let name = part[1..part[1..].find('"').unwrap() + 1].to_string();
            let f32s = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
            let case = Case {
                precision: Precision::from_name(field(part, "precision")).unwrap(),
                dim: field(part, "dim").parse().unwrap(),
                embeddings: f32s(numbers(part, "embeddings").unwrap()),
                ranges: numbers(part, "ranges").map(f32s),
                expected: numbers(part, "expected").unwrap(),
            };
            (name, case)
        })
        .collect()
}

#[test]
fn matches_the_reference() {
    let cases = cases();
    assert_eq!(cases.len(), 14);
    for (name, c) in cases {
        let q = quantize(&c.embeddings, c.dim, c.precision, c.ranges.as_deref())
            .unwrap_or_else(|e| panic!("{}: {}", name, e));
        assert_eq!(q.row_bytes, precision_row_bytes(c.precision, c.dim), "{}", name);
        assert_eq!(q.bytes().len(), q.rows * q.row_bytes, "{}", name);
        let got: Vec<f64> = match c.precision {
            Precision::Float32 => q
                .bytes()
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as f64)
                .collect(),
            Precision::Int8 | Precision::Binary => {
                q.to_i8().unwrap().into_iter().map(f64::from).collect()
            }
            Precision::Uint8 | Precision::Ubinary => {
                q.to_u8().unwrap().into_iter().map(f64::from).collect()
            }
        };
        assert_eq!(got, c.expected, "{}", name);
    }
}

#[test]
fn names_and_row_sizes_are_the_librarys() {
    let names = [(Precision::Float32, "float32"), (Precision::Int8, "int8"),
                 (Precision::Uint8, "uint8"), (Precision::Binary, "binary"),
                 (Precision::Ubinary, "ubinary")];
    for (p, name) in names {
        assert_eq!((p.name(), Precision::from_name(name)), (name, Some(p)));
    }
    assert_eq!(Precision::from_name("float16"), None);
    assert_eq!(precision_row_bytes(Precision::Float32, 3), 12);
    assert_eq!(precision_row_bytes(Precision::Binary, 13), 2);
    assert_eq!(precision_row_bytes(Precision::Int8, 0), 0);
    assert_eq!(precision_row_bytes(Precision::Int8, 1 << 31), 0);
}

#[test]
fn refusals_name_the_argument() {
    let x = [0.1f32, 0.25, 0.3, 0.4, 0.25, 0.5]; // [2, 3], dimension 1 constant
    let e = quantize(&x, 4, Precision::Int8, None).unwrap_err();
    assert_eq!((e.status, e.message.as_str()),
               (Status::InvalidArgument, "embeddings: 6 values are not rows of dim 4"));
    let e = quantize(&x, 3, Precision::Int8, Some(&[0.0; 5])).unwrap_err();
    assert_eq!(e.message,
               "ranges: expected [2, 3] (each dimension's minimum, then maximum), got 5 values");
    let e = quantize(&x, 3, Precision::Uint8, None).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    let constant = "embeddings: dimension 1 has no range to quantize (minimum 0.25, maximum 0.25";
    assert!(e.message.starts_with(constant), "{}", e.message);
    let e = quantize(&[0.1, f32::NAN, 0.3], 3, Precision::Binary, None).unwrap_err();
    assert_eq!(e.message, "embeddings[0][1] is nan: tf_quantize takes finite values");
    let q = quantize(&[], 3, Precision::Ubinary, None).unwrap();
    assert_eq!((q.rows, q.row_bytes, q.bytes().len()), (0, 1, 0));
}

/// The reference: each value's sign compared one by one, from the floats.
fn sign_disagreements(a: &[f32], b: &[f32]) -> i32 {
    a.iter().zip(b).filter(|(x, y)| (**x > 0.0) != (**y > 0.0)).count() as i32
}

#[test]
fn hamming_against_the_signs() {
    let dim = 13; // a padded last byte
    let wave = |i: usize| [0.5f32, -1.0, 0.0, 2.0, -0.25, 1.0, -3.0][(i * 5 + i / 7) % 7];
    let a: Vec<f32> = (0..3 * dim).map(wave).collect();
    let b: Vec<f32> = (0..4 * dim).map(|i| wave(3 * i + 1)).collect();
    for precision in [Precision::Binary, Precision::Ubinary] {
        let qa = quantize(&a, dim, precision, None).unwrap();
        let qb = quantize(&b, dim, precision, None).unwrap();
        let got = hamming_distance(&qa, &qb).unwrap();
        let similar = hamming_similarity(&qa, &qb).unwrap();
        assert_eq!(got.len(), 12);
        for i in 0..3 {
            for j in 0..4 {
                let (row_a, row_b) = (&a[i * dim..(i + 1) * dim], &b[j * dim..(j + 1) * dim]);
                let want = sign_disagreements(row_a, row_b);
                assert_eq!(got[i * 4 + j], want, "{:?} rows {} {}", precision, i, j);
                assert_eq!(similar[i * 4 + j], dim as i32 - want);
            }
        }
    }
}

#[test]
fn hamming_refusals() {
    let x = [1.0f32, -1.0, 0.5, 2.0];
    let bits = quantize(&x, 4, Precision::Ubinary, None).unwrap();
    let wider = quantize(&x, 2, Precision::Ubinary, None).unwrap();
    let floats = quantize(&x, 4, Precision::Float32, None).unwrap();
    let e = hamming_distance(&floats, &bits).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert_eq!(e.message, "a: expected binary or ubinary rows, got float32");
    let e = hamming_distance(&bits, &wider).unwrap_err();
    assert_eq!(e.message, "b: rows of 2 values, a's have 4");
}
