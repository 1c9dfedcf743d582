//! Test helpers: the project's test data, and a minimal .npy reader
//! ('<f4' and '<i4', C order).
#![allow(dead_code)]
use std::path::PathBuf;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join("data")
}

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join("golden")
}

/// (shape, little-endian 4-byte values) of a .npy file.
fn read_npy(path: &PathBuf, descr: &str) -> (Vec<usize>, Vec<[u8; 4]>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
    assert_eq!(&bytes[..6], b"\x93NUMPY", "{}: not .npy", path.display());
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
    };
    let header = std::str::from_utf8(&bytes[start..start + len]).unwrap();
    assert!(header.contains(descr), "{}: expected {}", path.display(), descr);
    let shape_text = &header[header.find("'shape': (").unwrap() + 10..];
    let shape: Vec<usize> = shape_text[..shape_text.find(')').unwrap()]
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let data = bytes[start + len..].chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    (shape, data)
}

pub fn npy_f32(path: PathBuf) -> (Vec<usize>, Vec<f32>) {
    let (shape, raw) = read_npy(&path, "'<f4'");
    (shape, raw.into_iter().map(f32::from_le_bytes).collect())
}

pub fn npy_i32(path: PathBuf) -> (Vec<usize>, Vec<i32>) {
    let (shape, raw) = read_npy(&path, "'<i4'");
    (shape, raw.into_iter().map(i32::from_le_bytes).collect())
}
