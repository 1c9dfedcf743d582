//! libtfenc's tokenizers: a tokenizer.json (Hugging Face tokenizers'
//! pipeline: WordPiece, BPE, Unigram), a model folder or BERT's vocab.txt.
use std::ffi::CStr;
use std::os::raw::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::sizes::{elements, from_c};

/// A padded batch of encoded texts: [batch, seq_len] arrays, row-major,
/// named as the keys of Python's `Tokenizer.__call__` (transformers'), ready for
/// `Inputs::input_ids(..).attention_mask(..).token_type_ids(..)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoding {
    pub batch: usize,
    pub seq_len: usize,
    /// [batch]: each row's real tokens.
    pub lengths: Vec<i32>,
    pub input_ids: Vec<i32>,
    pub token_type_ids: Vec<i32>,
    pub attention_mask: Vec<i32>,
    /// [batch, seq_len, 2]: each token's (start, end) in code points of its
    /// text or pair; (0, 0) for special tokens and padding. Since 0.4.0.
    pub offset_mapping: Vec<i64>,
    /// [batch]: the input each row came from; row b is input b unless
    /// return_overflowing_tokens made more rows. Since 0.4.0.
    pub overflow_to_sample_mapping: Vec<i32>,
}

/// How a call truncates (tf_truncation_mode). Since 0.4.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Truncation {
    /// The tokenizer's own (its file's truncation, or none).
    #[default]
    Tokenizer,
    None,
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

/// How far a call pads its rows (transformers' padding=). Since 0.4.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Padding {
    /// To the longest row ("longest"; or as the tokenizer.json's padding says).
    #[default]
    Longest,
    /// Every row to max_length ("max_length").
    MaxLength,
}

/// Where padding goes (transformers' padding_side=). Since 0.4.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaddingSide {
    Left,
    Right,
}

/// A call's truncation and padding, named and ordered as the keywords of
/// Python's `Tokenizer.__call__` (transformers' truncation=, max_length=,
/// padding=, pad_to_multiple_of=, padding_side=, stride=,
/// return_overflowing_tokens=). Rows are always padded to the longest at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TokenizeOptions {
    pub truncation: Truncation,
    /// None: the tokenizer's model_max_length; Some(n): n >= 1.
    pub max_length: Option<usize>,
    pub padding: Padding,
    /// None: as the tokenizer says; Some(n): rows padded to a multiple of n >= 1.
    pub pad_to_multiple_of: Option<usize>,
    /// None: where the tokenizer says (the right when it says nothing).
    pub padding_side: Option<PaddingSide>,
    /// The tokens each overflowing window repeats of the one before; 0 with
    /// Truncation::Tokenizer: the tokenizer.json's truncation.stride.
    pub stride: usize,
    /// Every window truncation cuts is a row of its own (see
    /// Encoding::overflow_to_sample_mapping); false: cut off.
    pub return_overflowing_tokens: bool,
}

/// A count given as the C option takes it: None is its 0 (not given), so
/// Some(0) cannot be read as not given and is refused, as is one above int32.
fn given_count(name: &str, n: Option<usize>) -> Result<i32> {
    n.map_or(Ok(0), |n| match i32::try_from(n) {
        Ok(c) if c >= 1 => Ok(c),
        _ => Err(Error::invalid(format!("{}: expected an integer in [1, {}], got {}", name,
                                        i32::MAX, n))),
    })
}

impl TokenizeOptions {
    fn to_c(self) -> Result<ffi::tf_encode_options> {
        let mut o = layout::init(ffi::tf_encode_options_init_sized);
        o.truncation = self.truncation as i32;
        o.max_length = given_count("max_length", self.max_length)?;
        o.pad_to_max_length = (self.padding == Padding::MaxLength) as i32;
        o.pad_to_multiple_of = given_count("pad_to_multiple_of", self.pad_to_multiple_of)?;
        o.pad_left = match self.padding_side {
            None => 0,
            Some(PaddingSide::Left) => 1,
            Some(PaddingSide::Right) => -1,
        };
        o.stride = i32::try_from(self.stride).map_err(|_| {
            Error::invalid(format!("stride: expected at most {}, got {}", i32::MAX, self.stride))
        })?;
        o.return_overflowing = self.return_overflowing_tokens as i32;
        Ok(o)
    }
}

/// A tokenizer (a tokenizer.json's, a model folder's or a vocab.txt's).
/// Immutable: share it between threads freely.
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
    /// The tokenizer of path as `from_file` reads it, a vocab.txt's uncased
    /// (lower-case, accents stripped) or, with lowercase false, cased: Python's
    /// `Tokenizer(path, lowercase)`.
    pub fn new<P: AsRef<Path>>(path: P, lowercase: bool) -> Result<Tokenizer> {
        layout::check()?;
        let path = std::ffi::CString::new(path.as_ref().to_string_lossy().as_bytes())
            .map_err(|_| Error::invalid("path: contains a NUL byte".to_string()))?;
        let mut o = layout::init(ffi::tf_tokenizer_options_init_sized);
        o.lowercase = lowercase as i32;
        let mut out = ptr::null_mut();
        // SAFETY: valid path and options; out receives the handle.
        check(unsafe { ffi::tf_tokenizer_load(path.as_ptr(), &o, &mut out) })?;
        Ok(Tokenizer { ptr: NonNull::new(out).expect("TF_OK and a handle") })
    }

    /// The tokenizer of a tokenizer.json, a model folder (its
    /// tokenizer.json, else its vocab.txt; tokenizer_config.json and
    /// special_tokens_map.json add their special and added tokens as
    /// transformers does, and give model_max_length and pad_token) or a
    /// vocab.txt. Since 0.4.0.
    pub fn from_file<P: AsRef<Path>>(path: P) -> Result<Tokenizer> {
        layout::check()?;
        let path = std::ffi::CString::new(path.as_ref().to_string_lossy().as_bytes())
            .map_err(|_| Error::invalid("path: contains a NUL byte".to_string()))?;
        let mut out = ptr::null_mut();
        // SAFETY: valid path, default options; out receives the handle.
        check(unsafe { ffi::tf_tokenizer_load(path.as_ptr(), ptr::null(), &mut out) })?;
        Ok(Tokenizer { ptr: NonNull::new(out).expect("TF_OK and a handle") })
    }

    /// What truncation without max_length cuts to; 0 when nothing says.
    pub fn model_max_length(&self) -> usize {
        // SAFETY: valid handle.
        from_c(unsafe { ffi::tf_tokenizer_model_max_length(self.ptr.as_ptr()) })
    }

    /// The text of ids as the tokenizer's decoder makes it (Hugging Face
    /// tokenizers' decode), the special tokens left out when asked.
    pub fn decode(&self, ids: &[i32], skip_special_tokens: bool) -> Result<String> {
        let mut len = 0usize;
        // SAFETY: ids.len() ids; a NULL buffer of size 0 asks the length only.
        check(unsafe {
            ffi::tf_tokenizer_decode(self.ptr.as_ptr(), ids.as_ptr(), ids.len(),
                                     skip_special_tokens as i32, ptr::null_mut(), 0, &mut len)
        })?;
        let mut buf = vec![0u8; len + 1];
        // SAFETY: buf holds len bytes and the NUL.
        check(unsafe {
            ffi::tf_tokenizer_decode(self.ptr.as_ptr(), ids.as_ptr(), ids.len(),
                                     skip_special_tokens as i32, buf.as_mut_ptr() as *mut c_char,
                                     buf.len(), &mut len)
        })?;
        buf.truncate(len);
        Ok(String::from_utf8_lossy(&buf).into_owned())
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

    /// (id, span in code points) of each token of text, with the special
    /// tokens the tokenizer adds (their span empty), without the padding
    /// its tokenizer.json may add on either side.
    fn tokens(&self, text: &str) -> Result<Vec<(i32, [i64; 2])>> {
        let e = self.encode_batch(&[text])?;
        Ok((0..e.seq_len)
            .filter(|&t| e.attention_mask[t] == 1)
            .map(|t| (e.input_ids[t], [e.offset_mapping[2 * t], e.offset_mapping[2 * t + 1]]))
            .collect())
    }

    /// The ids of text with the special tokens the tokenizer adds
    /// (`[CLS] text [SEP]` for BERT, none for some tokenizer.json files).
    pub fn encode(&self, text: &str) -> Result<Vec<i32>> {
        Ok(self.tokens(text)?.into_iter().map(|(id, _)| id).collect())
    }

    /// The tokens of text as strings, without the special tokens the
    /// tokenizer adds (each text token spans some of the text; they span none).
    pub fn tokenize(&self, text: &str) -> Result<Vec<String>> {
        Ok(self
            .tokens(text)?
            .into_iter()
            .filter(|&(_, [start, end])| start != end)
            .filter_map(|(id, _)| self.id_to_token(id))
            .collect())
    }

    /// Several texts, padded to the longest.
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Encoding> {
        self.encode_batch_with(texts, None, &TokenizeOptions::default())
    }

    /// Several texts (and as many pairs), truncated and padded as `options`
    /// say. Since 0.4.0.
    pub fn encode_batch_with(&self, texts: &[&str], pairs: Option<&[&str]>,
                             options: &TokenizeOptions) -> Result<Encoding> {
        if let Some(p) = pairs {
            if p.len() != texts.len() {
                return Err(Error::invalid(format!("pairs: expected {} texts, got {}", texts.len(),
                                                  p.len())));
            }
        }
        let o = options.to_c()?;
        let ptrs = |v: &[&str]| v.iter().map(|t| t.as_ptr() as *const c_char).collect::<Vec<_>>();
        let lens = |v: &[&str]| v.iter().map(|t| t.len()).collect::<Vec<usize>>();
        let (tp, tl) = (ptrs(texts), lens(texts));
        let (pp, pl) = (pairs.map(ptrs), pairs.map(lens));
        let mut enc = ptr::null_mut();
        // SAFETY: n texts (and pairs) of the given byte lengths (Rust strings
        // need no NUL); enc receives the result, copied then destroyed below.
        unsafe {
            check(ffi::tf_tokenizer_encode_batch_with(
                self.ptr.as_ptr(),
                texts.len(),
                tp.as_ptr(),
                tl.as_ptr(),
                pp.as_ref().map_or(ptr::null(), |v| v.as_ptr()),
                pl.as_ref().map_or(ptr::null(), |v| v.as_ptr()),
                &o,
                &mut enc,
            ))?;
            let (b, t) = (from_c(ffi::tf_encoding_batch(enc)),
                          from_c(ffi::tf_encoding_seq_len(enc)));
            let out = elements("encoding", &[b, t]).map(|bt| {
                let copy = |p: *const i32, n: usize| std::slice::from_raw_parts(p, n).to_vec();
                Encoding {
                    batch: b,
                    seq_len: t,
                    lengths: copy(ffi::tf_encoding_lengths(enc), b),
                    input_ids: copy(ffi::tf_encoding_ids(enc), bt),
                    token_type_ids: copy(ffi::tf_encoding_type_ids(enc), bt),
                    attention_mask: copy(ffi::tf_encoding_attention_mask(enc), bt),
                    offset_mapping: std::slice::from_raw_parts(ffi::tf_encoding_char_offsets(enc),
                                                               2 * bt).to_vec(),
                    overflow_to_sample_mapping: copy(ffi::tf_encoding_overflow_to_sample(enc), b),
                }
            });
            ffi::tf_encoding_destroy(enc);
            out
        }
    }
}
