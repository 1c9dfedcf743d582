"""What forward calls run on in this process: tf_runtime_info_get."""
import ctypes

from ._lib import RuntimeInfo, check, lib


def runtime_info():
    """The BLAS libtfenc was built with ("blas"), its version and build
    ("blas_build"), the CPU kernels it runs ("blas_kernels": OpenBLAS's
    core, which the OPENBLAS_CORETYPE variable picks when set), its thread
    setting now ("blas_threads"), the build of the library's own loops this
    CPU runs ("vector_loops": "avx512", "avx2" or "base") and the threads a
    forward call may use ("max_threads"), as a dict."""
    info = RuntimeInfo()
    check(lib.tf_runtime_info_get_sized(ctypes.byref(info), ctypes.sizeof(info)))
    return {name: (value.decode() if isinstance(value, bytes) else value)
            for name, value in ((f, getattr(info, f)) for f, _ in RuntimeInfo._fields_)
            if name != "struct_size"}
