//! ColBERT on the PyLate folders of tests/data/colbert (gen_colbert.py: laid
//! out as answerdotai/answerai-colbert-small-v1 and lightonai/GTE-ModernColBERT-v1):
//! the first document's vectors and every (query, document) MaxSim within
//! the float64 reference's tolerance, rerank's order, and the refusals.
mod common;

use common::{data_dir, npy_f32};
use tfenc::{maxsim, ColBERT, Status, TokenVectors};

/// expected_<name>.bin's NUL-terminated texts.
fn texts(folder: &str, name: &str) -> Vec<String> {
    let path = data_dir().join("colbert").join(folder).join(format!("expected_{}.bin", name));
    let bytes = std::fs::read(path).unwrap();
    let mut out: Vec<String> =
        bytes.split(|&b| b == 0).map(|t| String::from_utf8(t.to_vec()).unwrap()).collect();
    out.pop(); // after the last NUL
    out
}

#[test]
fn vectors_and_scores_match_the_reference() {
    for folder in ["answerai_like", "attend_residual", "no_expansion", "modernbert_like"] {
        let model = ColBERT::from_dir(data_dir().join("colbert").join(folder)).unwrap();
        let (q, d) = (texts(folder, "queries"), texts(folder, "documents"));
        let q: Vec<&str> = q.iter().map(|s| s.as_str()).collect();
        let d: Vec<&str> = d.iter().map(|s| s.as_str()).collect();
        let queries = model.encode(&q, true, 2).unwrap();
        let documents = model.encode(&d, false, 0).unwrap();
        let (shape, want) = npy_f32(data_dir().join("colbert").join(folder)
            .join("expected_document0.npy"));
        assert_eq!((documents[0].rows, documents[0].dim), (shape[0], shape[1]), "{}", folder);
        assert_eq!(model.dim(), shape[1]);
        for (j, (g, w)) in documents[0].data.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-5, "{} [{}]: {} vs {}", folder, j, g, w);
        }
        let (shape, scores) =
            npy_f32(data_dir().join("colbert").join(folder).join("expected_scores.npy"));
        assert_eq!(shape, vec![q.len(), d.len()]);
        for (i, query) in queries.iter().enumerate() {
            for (j, doc) in documents.iter().enumerate() {
                let got = maxsim(query, doc).unwrap();
                let want = scores[i * d.len() + j];
                assert!((got - want).abs() <= 1e-4, "{} [{}, {}]: {} vs {}", folder, i, j, got,
                        want);
            }
        }
        let ranked = model.rerank(q[0], &d, 0).unwrap();
        let mut order: Vec<usize> = (0..d.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), order, "{}", folder);
    }
}

#[test]
fn refusals() {
    let err = ColBERT::from_dir(data_dir().join("pipelines").join("st_mean_norm")).err().unwrap();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(err.message.ends_with("the folder's kind is embedding; ColBERT reads multi-vector \
                                   folders"), "{}", err.message);
    let q = TokenVectors { rows: 1, dim: 2, data: vec![1.0, f32::NAN], ids: vec![0] };
    let err = maxsim(&q, &q).err().unwrap();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(err.message.contains("query[0, 1]: a non-finite value"), "{}", err.message);
    let empty = TokenVectors { rows: 0, dim: 2, data: vec![], ids: vec![] };
    let err = maxsim(&empty, &empty).err().unwrap();
    assert!(err.message.contains("q_rows: expected >= 1, got 0"), "{}", err.message);
}
