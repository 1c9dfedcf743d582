//! The #[repr(C)] mirrors of ffi against the library's structs: their sizes
//! checked once per process (before a handle is made), and the
//! `*_init_sized` calls that pass a mirror's size as its `struct_size`.
use std::ffi::CStr;
use std::mem::size_of;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use crate::error::{Error, Result, Status};
use crate::ffi;

/// A struct of ffi that the caller initialises: plain data (integers,
/// floats, pointers, optional function pointers), valid when all zero.
///
/// # Safety
/// Only for #[repr(C)] mirrors of tfenc.h for which zeroed memory is a
/// valid value.
pub(crate) unsafe trait Mirror: Sized {}
unsafe impl Mirror for ffi::tf_config {}
unsafe impl Mirror for ffi::tf_forward_args {}
unsafe impl Mirror for ffi::tf_load_options {}
unsafe impl Mirror for ffi::tf_tokenizer_options {}
unsafe impl Mirror for ffi::tf_runtime_info {}
unsafe impl Mirror for ffi::tf_pipeline_options {}
unsafe impl Mirror for ffi::tf_pipeline_args {}
unsafe impl Mirror for ffi::tf_encode_options {}
unsafe impl Mirror for ffi::tf_hub_options {}
unsafe impl Mirror for ffi::tf_image_args {}

/// A mirror filled with its defaults by `init_sized` (a `tf_*_init_sized`),
/// its struct_size the mirror's size.
pub(crate) fn init<T: Mirror>(init_sized: unsafe extern "C" fn(*mut T, usize)) -> T {
    // SAFETY: zeroed is a valid T (Mirror); init_sized writes at most
    // size_of::<T>() bytes into it.
    unsafe {
        let mut value: T = std::mem::zeroed();
        init_sized(&mut value, size_of::<T>());
        value
    }
}

/// (C name, NUL-terminated; size of the Rust mirror) of every struct the
/// crate shares with the library.
type Entry = (&'static [u8], usize);
const MIRRORS: [Entry; 12] = [
    (b"tf_config\0", size_of::<ffi::tf_config>()),
    (b"tf_forward_args\0", size_of::<ffi::tf_forward_args>()),
    (b"tf_load_options\0", size_of::<ffi::tf_load_options>()),
    (b"tf_tokenizer_options\0", size_of::<ffi::tf_tokenizer_options>()),
    (b"tf_trace_event\0", size_of::<ffi::tf_trace_event>()),
    (b"tf_runtime_info\0", size_of::<ffi::tf_runtime_info>()),
    (b"tf_pipeline_options\0", size_of::<ffi::tf_pipeline_options>()),
    (b"tf_pipeline_args\0", size_of::<ffi::tf_pipeline_args>()),
    (b"tf_encode_options\0", size_of::<ffi::tf_encode_options>()),
    (b"tf_hub_options\0", size_of::<ffi::tf_hub_options>()),
    (b"tf_hub_progress\0", size_of::<ffi::tf_hub_progress>()),
    (b"tf_image_args\0", size_of::<ffi::tf_image_args>()),
];

/// The error when the mirror's size is not the library's struct's.
fn mismatch(&(name, size): &Entry) -> Option<Error> {
    let name = CStr::from_bytes_with_nul(name).expect("a NUL-terminated name");
    // SAFETY: a NUL-terminated name; tf_struct_size only reads it.
    let library = unsafe { ffi::tf_struct_size(name.as_ptr() as *const c_char) };
    (library != size).then(|| Error {
        status: Status::Unsupported,
        message: format!(
            "{}: the Rust mirror is {} bytes, libtfenc {}'s struct {} bytes: this crate does not \
             match the library it loaded",
            name.to_string_lossy(),
            size,
            crate::version(),
            library
        ),
    })
}

const NONE: usize = usize::MAX;
static CHECKED: Once = Once::new();
/// The index in MIRRORS of the first mirror that does not match, or NONE.
static MISMATCHED: AtomicUsize = AtomicUsize::new(NONE);

/// Ok when every mirror has the library's size; checked on the first call.
pub(crate) fn check() -> Result<()> {
    CHECKED.call_once(|| {
        if let Some(i) = MIRRORS.iter().position(|m| mismatch(m).is_some()) {
            MISMATCHED.store(i, Ordering::Relaxed);
        }
    });
    match MISMATCHED.load(Ordering::Relaxed) {
        NONE => Ok(()),
        i => Err(mismatch(&MIRRORS[i]).expect("the mismatch found by the first check")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mirror_has_the_library_size() {
        for m in &MIRRORS {
            assert_eq!(mismatch(m), None);
        }
        assert_eq!(check(), Ok(()));
    }

    #[test]
    fn a_mirror_of_another_size_is_an_error_naming_both_sizes() {
        let name = b"tf_forward_args\0";
        // SAFETY: a NUL-terminated name.
        let library = unsafe { ffi::tf_struct_size(name.as_ptr() as *const c_char) };
        let e = mismatch(&(name, 8)).unwrap();
        assert_eq!(e.status, Status::Unsupported);
        assert_eq!(
            e.message,
            format!(
                "tf_forward_args: the Rust mirror is 8 bytes, libtfenc {}'s struct {} bytes: this \
                 crate does not match the library it loaded",
                crate::version(),
                library
            )
        );
    }
}
