//! runtime_info() reports what this process runs on, as the library says it.
use tfenc::runtime_info;

#[test]
fn runtime_info_names_the_blas_its_kernels_and_the_threads() {
    let info = runtime_info().unwrap();
    assert!(info.blas == "OpenBLAS" || info.blas == "BLIS", "{:?}", info);
    assert!(!info.blas_build.is_empty());
    assert!(["avx512", "avx2", "base"].contains(&info.vector_loops.as_str()), "{:?}", info);
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(info.max_threads, cores.min(32));
    assert!(info.blas_threads >= 1);
    // OPENBLAS_CORETYPE, when set (Haswell in this project's CI), is the
    // kernel OpenBLAS runs.
    match std::env::var("OPENBLAS_CORETYPE") {
        Ok(core) if info.blas == "OpenBLAS" => {
            assert!(info.blas_kernels.eq_ignore_ascii_case(&core), "{:?} vs {}", info, core)
        }
        _ => assert!(!info.blas_kernels.is_empty()),
    }
}
