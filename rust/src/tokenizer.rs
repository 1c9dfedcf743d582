//! BERT's WordPiece tokenizer (libtfenc's).
use std::ffi::CStr;
use std::os::raw::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::sizes::{elements, from_c};

/// A padded batch of encoded texts: [batch, seq_len] arrays, row-major,
/// ready for `Inputs::ids(..).attention_mask(..).token_type_ids(..)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoding {
    pub batch: usize,
    pub seq_len: usize,
    pub lengths: Vec<i32>,
    pub ids: Vec<i32>,
    pub type_ids: Vec<i32>,
    pub attention_mask: Vec<i32>,
}

/// A vocab.txt loaded for tokenizing, uncased (lower-case, accents
/// stripped) or cased. Immutable: share it between threads freely.
pub struct Tokenizer {
    ptr: NonNull<ffi::tf_tokenizer>,
}

// SAFETY: a loaded tokenizer is immutable; the C library documents it as
// usable from many threads at once.
unsafe impl Send for Tokenizer {}
unsafe impl Sync for Tokenizer {}

impl Drop for Tokenizer {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned.
        unsafe { ffi::tf_tokenizer_destroy(self.ptr.as_ptr()) };
    }
}

impl Tokenizer {
    pub fn new<P: AsRef<Path>>(vocab: P, lowercase: bool) -> Result<Tokenizer> {
        layout::check()?;
        let path = std::ffi::CString::new(vocab.as_ref().to_string_lossy().as_bytes())
            .map_err(|_| Error::invalid("vocab path: contains a NUL byte".to_string()))?;
        let mut o = layout::init(ffi::tf_tokenizer_options_init_sized);
        o.lowercase = lowercase as i32;
        let mut out = ptr::null_mut();
        // SAFETY: valid path and options; out receives the handle.
        check(unsafe { ffi::tf_tokenizer_load(path.as_ptr(), &o, &mut out) })?;
        Ok(Tokenizer { ptr: NonNull::new(out).expect("TF_OK and a handle") })
    }

    pub fn vocab_size(&self) -> usize {
        // SAFETY: valid handle.
        from_c(unsafe { ffi::tf_tokenizer_vocab_size(self.ptr.as_ptr()) })
    }

    /// The token of an id, or None.
    pub fn id_to_token(&self, id: i32) -> Option<String> {
        // SAFETY: valid handle; the string (if any) lives as long as it.
        unsafe {
            let t = ffi::tf_tokenizer_id_to_token(self.ptr.as_ptr(), id);
            if t.is_null() {
                None
            } else {
                Some(CStr::from_ptr(t).to_string_lossy().into_owned())
            }
        }
    }

    /// The ids of `[CLS] text [SEP]`.
    pub fn encode(&self, text: &str) -> Result<Vec<i32>> {
        let e = self.encode_batch(&[text])?;
        Ok(e.ids[..from_c(e.lengths[0])].to_vec())
    }

    /// The tokens of text as strings, without `[CLS]` and `[SEP]`.
    pub fn tokenize(&self, text: &str) -> Result<Vec<String>> {
        let ids = self.encode(text)?;
        Ok(ids[1..ids.len() - 1].iter().filter_map(|&i| self.id_to_token(i)).collect())
    }

    /// Several texts, padded to the longest.
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Encoding> {
        let ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr() as *const c_char).collect();
        let lens: Vec<usize> = texts.iter().map(|t| t.len()).collect();
        let mut enc = ptr::null_mut();
        // SAFETY: n texts of the given byte lengths (Rust strings need no
        // NUL); enc receives the result, copied then destroyed below.
        unsafe {
            check(ffi::tf_tokenizer_encode_batch(
                self.ptr.as_ptr(),
                texts.len(),
                ptrs.as_ptr(),
                lens.as_ptr(),
                ptr::null(),
                ptr::null(),
                &mut enc,
            ))?;
            let (b, t) = (from_c(ffi::tf_encoding_batch(enc)), from_c(ffi::tf_encoding_seq_len(enc)));
            let out = elements("encoding", &[b, t]).map(|bt| {
                let copy = |p: *const i32, n: usize| std::slice::from_raw_parts(p, n).to_vec();
                Encoding {
                    batch: b,
                    seq_len: t,
                    lengths: copy(ffi::tf_encoding_lengths(enc), b),
                    ids: copy(ffi::tf_encoding_ids(enc), bt),
                    type_ids: copy(ffi::tf_encoding_type_ids(enc), bt),
                    attention_mask: copy(ffi::tf_encoding_attention_mask(enc), bt),
                }
            });
            ffi::tf_encoding_destroy(enc);
            out
        }
    }
}
