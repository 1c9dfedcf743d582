//! ImageEncoder and ImageClassifier on the folders of tests/data/image_pipeline
//! (gen_image_pipeline.py: CLIP, sentence-transformers' CLIP, SigLIP, ViTModel,
//! ViTForImageClassification) against its float64 references within 1e-5,
//! from the files' bytes and from PIL's decoded pixels; and the refusals.
mod common;

use common::data_dir;
use tfenc::{Image, ImageClassifier, ImageEncoder, Status};

/// expected.json's "values", [2 * width] (gen_image_pipeline.py writes them on one key).
fn expected(name: &str) -> Vec<f64> {
    let text =
        std::fs::read_to_string(data_dir().join("image_pipeline").join(name).join("expected.json"))
            .unwrap();
    let start = text.find("\"values\": [").unwrap() + "\"values\": [".len();
    let end = start + text[start..].find(']').unwrap();
    text[start..end].split(',').map(|v| v.trim().parse().unwrap()).collect()
}

const FILES: [&str; 2] = ["photo_astronaut_200x160.jpg", "photo_coffee_150x100.webp"];
/// The files as PIL decodes them (gen_images.py), with their height and width.
const DECODED: [(&str, usize, usize); 2] =
    [("photo_astronaut_200x160.jpg.rgb", 160, 200), ("photo_coffee_150x100.webp.rgb", 100, 150)];

fn read(parts: &[&str]) -> Vec<u8> {
    std::fs::read(parts.iter().fold(data_dir(), |p, s| p.join(s))).unwrap()
}

fn assert_close(got: &[Vec<f32>], want: &[f64], what: &str) {
    let flat: Vec<f32> = got.concat();
    assert_eq!(flat.len(), want.len(), "{}", what);
    let worst = flat.iter().zip(want).map(|(g, w)| (*g as f64 - w).abs()).fold(0.0, f64::max);
    assert!(worst <= 1e-5, "{}: max abs error {}", what, worst);
}

#[test]
fn embeddings_match_the_reference() {
    let files: Vec<Vec<u8>> = FILES.iter().map(|f| read(&["images", "files", f])).collect();
    let rgb: Vec<Vec<u8>> = DECODED.iter().map(|d| read(&["images", "expected", d.0])).collect();
    for name in ["clip", "st_clip", "siglip", "vit_model"] {
        let enc = ImageEncoder::from_dir(data_dir().join("image_pipeline").join(name)).unwrap();
        let want = expected(name);
        let images: Vec<Image> = files.iter().map(|b| Image::File(b)).collect();
        assert_close(&enc.encode(&images, 32, false).unwrap(), &want, name);
        let pixels: Vec<Image> = rgb
            .iter()
            .zip(DECODED)
            .map(|(b, d)| Image::Pixels { rgb: b, height: d.1, width: d.2 })
            .collect();
        assert_close(&enc.encode(&pixels, 1, false).unwrap(), &want, name);
        let unit = enc.encode(&images, 32, true).unwrap();
        for row in unit {
            let norm: f32 = row.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "{}: |v| = {}", name, norm);
        }
    }
}

#[test]
fn classifier_matches_the_reference() {
    let clf = ImageClassifier::from_dir(data_dir().join("image_pipeline").join("vit_classifier"))
        .unwrap();
    assert_eq!(clf.labels(), ["tabby cat", "golden retriever", "teapot"]);
    let files: Vec<Vec<u8>> = FILES.iter().map(|f| read(&["images", "files", f])).collect();
    let images: Vec<Image> = files.iter().map(|b| Image::File(b)).collect();
    let want = expected("vit_classifier");
    assert_close(&clf.predict_proba(&images, 32).unwrap(), &want, "vit_classifier");
    let best = clf.classify(&images[..1], Some(1), 32).unwrap();
    assert_eq!(best[0].len(), 1);
    assert_eq!(best[0][0].0, "tabby cat"); // 0.58 of the reference's first row
}

#[test]
fn refusals() {
    let enc = ImageEncoder::from_dir(data_dir().join("image_pipeline").join("clip")).unwrap();
    let err = enc.encode(&[Image::File(b"not an image")], 32, false).unwrap_err();
    assert_eq!(err.status, Status::Format);
    assert_eq!(
        err.message,
        "image 0: not a JPEG, PNG or WebP image: it starts with 6e 6f 74 20 61 6e 20 69"
    );
    let err = enc.encode(&[Image::Pixels { rgb: &[0; 11], height: 2, width: 2 }], 32, false);
    assert!(err.unwrap_err().message.contains("images[0]: 11 bytes of pixels"));
    let err = ImageClassifier::from_dir(data_dir().join("image_pipeline").join("clip"))
        .err()
        .unwrap();
    assert!(err.to_string().contains("ImageClassifier reads image-classifier folders"), "{}", err);
}
