//! Links libtfenc: from TFENC_LIB_DIR, else a meson build tree next to this
//! crate (../build*/lib), else wherever pkg-config says it is installed. The
//! directory is also added as an rpath, so tests and examples run as built.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn build_tree() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("lib")))
        .filter(|lib| lib.join("libtfenc.so").exists())
        .filter(|lib| {
            lib.parent()
                .and_then(|p| p.file_name())
                .map_or(false, |n| n.to_string_lossy().starts_with("build"))
        })
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

fn pkg_config() -> Option<PathBuf> {
    let out = Command::new("pkg-config").args(["--variable=libdir", "tfenc"]).output().ok()?;
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
    if out.status.success() && !dir.is_empty() {
        Some(PathBuf::from(dir))
    } else {
        None
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=TFENC_LIB_DIR");
    let dir = env::var_os("TFENC_LIB_DIR")
        .map(PathBuf::from)
        .or_else(build_tree)
        .or_else(pkg_config)
        .unwrap_or_else(|| {
            panic!(
                "libtfenc not found: set TFENC_LIB_DIR to the directory of libtfenc.so, build it \
                 with meson next to this crate, or install it (pkg-config tfenc)"
            )
        });
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=tfenc");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
}
