//! ImageEncoder on the whole CLIP and SigLIP folders of tests/data/clip_text
//! (gen_clip_text.py): text vectors from the text tower and zero-shot
//! probabilities of the two image files against its float64 references within
//! 1e-5; a vision folder alone has no text tower.
mod common;

use common::data_dir;
use tfenc::{Image, ImageEncoder, Status};

/// expected.json's numbers under key (each a flat array of numbers).
fn numbers(name: &str, key: &str) -> Vec<f64> {
    let path = data_dir().join("clip_text").join(name).join("expected.json");
    let text = std::fs::read_to_string(path).unwrap();
    let tag = format!("\"{}\": [", key);
    let start = text.find(&tag).unwrap() + tag.len();
    let end = start + text[start..].find(']').unwrap();
    text[start..end].split(',').map(|v| v.trim().parse().unwrap()).collect()
}

const TEXTS: [&str; 3] = ["a photo of a cat", "a red car", "a dog"];
const LABELS: [&str; 3] = ["a photo of a cat", "a photo of a dog", "a photo of a red car"];
const FILES: [&str; 2] = ["photo_astronaut_200x160.jpg", "photo_coffee_150x100.webp"];

fn assert_close(got: &[Vec<f32>], want: &[f64], what: &str) {
    let flat: Vec<f32> = got.concat();
    assert_eq!(flat.len(), want.len(), "{}", what);
    let worst = flat.iter().zip(want).map(|(g, w)| (*g as f64 - w).abs()).fold(0.0, f64::max);
    assert!(worst <= 1e-5, "{}: max abs error {}", what, worst);
}

#[test]
fn texts_and_zero_shot_match_the_reference() {
    let read = |f: &&str| std::fs::read(data_dir().join("images").join("files").join(f)).unwrap();
    let files: Vec<Vec<u8>> = FILES.iter().map(read).collect();
    let images: Vec<Image> = files.iter().map(|b| Image::File(b)).collect();
    for name in ["clip", "st_clip", "siglip"] {
        let enc = ImageEncoder::from_dir(data_dir().join("clip_text").join(name)).unwrap();
        assert!(enc.has_text_tower(), "{}", name);
        assert_close(&enc.encode_texts(&TEXTS, 32, false).unwrap(), &numbers(name, "text_embeds"),
                     name);
        assert_close(&enc.zero_shot(&images, &LABELS, 1).unwrap(), &numbers(name, "probs_files"),
                     name);
    }
}

#[test]
fn a_vision_folder_alone_has_no_text_tower() {
    let enc = ImageEncoder::from_dir(data_dir().join("image_pipeline").join("clip")).unwrap();
    assert!(!enc.has_text_tower());
    let bytes = std::fs::read(data_dir().join("images").join("files").join(FILES[0])).unwrap();
    let err = enc.zero_shot(&[Image::File(&bytes)], &["a cat"], 1).unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(err.message.contains("the pipeline has no text tower"), "{}", err.message);
}
