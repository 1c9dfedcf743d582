//! SparseEncoder on the SPLADE folders of tests/data/sparse (gen_sparse.py:
//! laid out as naver/splade-v3, prithivida/Splade_PP_en_v1 and
//! opensearch-neural-sparse-encoding-doc-v2-distill): each text's vector
//! within 1e-5 of the float64 reference (expected_out.npy; the Router's
//! query route, expected_query_out.npy), max_active_dims, dot products;
//! and a folder of another kind refused.
mod common;

use common::{data_dir, npy_f32};
use tfenc::{SparseEncoder, SparseOptions, SparseVector, Status};

/// expected_texts.bin's NUL-terminated texts.
fn texts(name: &str) -> Vec<String> {
    let bytes = std::fs::read(data_dir().join("sparse").join(name).join("expected_texts.bin"))
        .unwrap();
    let mut out: Vec<String> =
        bytes.split(|&b| b == 0).map(|t| String::from_utf8(t.to_vec()).unwrap()).collect();
    out.pop(); // after the last NUL
    out
}

fn expect_rows(got: &[SparseVector], file: &str, name: &str) {
    let (shape, want) = npy_f32(data_dir().join("sparse").join(name).join(file));
    assert_eq!(got.len(), shape[0], "{}", name);
    for (r, v) in got.iter().enumerate() {
        assert!(v.indices.windows(2).all(|w| w[0] < w[1]), "{} {}: not ascending", name, r);
        let dense = v.to_dense(shape[1]);
        for (j, (g, w)) in dense.iter().zip(&want[r * shape[1]..(r + 1) * shape[1]]).enumerate() {
            assert!((g - w).abs() <= 1e-5, "{} {} [{}]: {} vs {}", name, r, j, g, w);
        }
    }
}

#[test]
fn documents_match_the_reference() {
    for name in ["splade_v3", "splade_sum", "splade_pp", "opensearch_doc_v2"] {
        let model = SparseEncoder::from_dir(data_dir().join("sparse").join(name)).unwrap();
        assert_eq!(model.dim(), 58);
        let t = texts(name);
        let refs: Vec<&str> = t.iter().map(|s| s.as_str()).collect();
        let docs = model.encode_document(&refs).unwrap();
        expect_rows(&docs, "expected_out.npy", name);
        let top = model.encode(&refs, &SparseOptions { max_active_dims: 3, ..Default::default() })
            .unwrap();
        for (k, full) in top.iter().zip(&docs) {
            assert_eq!(k.indices.len(), 3);
            let mut largest = full.values.clone();
            largest.sort_by(|a, b| b.partial_cmp(a).unwrap());
            assert!(k.values.iter().all(|v| *v >= largest[2]), "{}", name);
        }
        let self_dot = docs[0].dot(&docs[0]);
        let want: f32 = docs[0].values.iter().map(|v| v * v).sum();
        assert!((self_dot - want).abs() <= 1e-3 * want.max(1.0));
    }
}

#[test]
fn router_query_route() {
    let model =
        SparseEncoder::from_dir(data_dir().join("sparse").join("opensearch_doc_v2")).unwrap();
    let queries = ["what colour is the sky?", "how many legs does a dog have?", "the the the"];
    expect_rows(&model.encode_query(&queries).unwrap(), "expected_query_out.npy",
                "opensearch_doc_v2");
}

#[test]
fn other_kinds_refused() {
    let err = SparseEncoder::from_dir(data_dir().join("pipelines").join("st_mean_norm"))
        .err()
        .unwrap();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(err.to_string().contains("SparseEncoder reads sparse-embedding folders"), "{}", err);
}
