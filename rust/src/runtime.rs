//! What forward calls run on in this process: `tf_runtime_info_get_sized`.
use std::ffi::CStr;
use std::mem::size_of;
use std::os::raw::c_char;

use crate::error::{check, Result};
use crate::{ffi, layout};

/// The BLAS libtfenc was built with and what it runs, the build of the
/// library's own loops this CPU runs, and the threads a call may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeInfo {
    /// "OpenBLAS" or "BLIS".
    pub blas: String,
    /// The BLAS's own description of its version and build.
    pub blas_build: String,
    /// The CPU kernels it runs: OpenBLAS's core (the `OPENBLAS_CORETYPE`
    /// variable picks it when set), BLIS's configuration.
    pub blas_kernels: String,
    /// The build of the library's softmax and activations: "avx512",
    /// "avx2" or "base".
    pub vector_loops: String,
    /// The BLAS's thread setting now (1 while forward calls run).
    pub blas_threads: usize,
    /// Threads a forward call may use with `n_threads` 0.
    pub max_threads: usize,
}

fn text(p: *const c_char) -> String {
    // SAFETY: the library's static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The runtime of this process, as the library reports it.
pub fn runtime_info() -> Result<RuntimeInfo> {
    layout::check()?;
    // SAFETY: zeroed is a valid tf_runtime_info (integers and pointers); the
    // library writes at most size_of of it, the size it is given.
    let mut info: ffi::tf_runtime_info = unsafe { std::mem::zeroed() };
    check(unsafe { ffi::tf_runtime_info_get_sized(&mut info, size_of::<ffi::tf_runtime_info>()) })?;
    Ok(RuntimeInfo {
        blas: text(info.blas),
        blas_build: text(info.blas_build),
        blas_kernels: text(info.blas_kernels),
        vector_loops: text(info.vector_loops),
        blas_threads: crate::sizes::from_c(info.blas_threads),
        max_threads: crate::sizes::from_c(info.max_threads),
    })
}
