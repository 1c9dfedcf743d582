//! Models by name: a Hugging Face Hub id ("sentence-transformers/all-MiniLM-L6-v2") resolved
//! to a model folder in the Hub's cache by the C library's `tf_hub_resolve` (tfenc.h, "Models
//! by name"; docs/hub.md): the cache huggingface_hub shares (`HF_HUB_CACHE`, `HF_HOME`,
//! `~/.cache/huggingface/hub`), else a download of the files a folder needs into it.
//!
//! ```no_run
//! let folder = tfenc::hub::resolve("sentence-transformers/all-MiniLM-L6-v2",
//!                                  &tfenc::HubOptions::default())?;
//! let model = tfenc::SentenceEncoder::from_dir(&folder)?;
//! # Ok::<(), tfenc::Error>(())
//! ```
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::{c_char, c_void};
use std::os::unix::ffi::OsStrExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::ptr;

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;

/// A folder's path as tf_hub_resolve writes it: Linux's PATH_MAX.
const PATH_BYTES: usize = 4096;

/// What a download has done so far (tf_hub_progress), for `HubOptions::progress`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub repo_id: String,
    /// The repository file being fetched ("model.safetensors").
    pub file: String,
    /// 0..file_count: the files this call fetches (not those already cached).
    pub file_index: usize,
    pub file_count: usize,
    /// Bytes of this file on disk (a resumed one starts above 0), and its size.
    pub file_bytes: u64,
    pub file_size: u64,
    /// Bytes of all file_count files on disk, and their sizes.
    pub bytes: u64,
    pub total_bytes: u64,
    /// Waiting for another download of this file (its lock).
    pub waiting: bool,
}

/// A closure told of a download's progress: false stops it.
pub type ProgressFn<'a> = Box<dyn Fn(&Progress) -> bool + 'a>;

/// How `resolve` finds a repository (tf_hub_options). `None` is the environment's (tfenc.h).
#[derive(Default)]
pub struct HubOptions<'a> {
    /// A branch, tag or commit; None: "main".
    pub revision: Option<String>,
    /// None: HF_HUB_CACHE, HF_HOME/hub, ..., ~/.cache/huggingface/hub.
    pub cache_dir: Option<PathBuf>,
    /// None: HF_ENDPOINT, else https://huggingface.co.
    pub endpoint: Option<String>,
    /// None: HF_TOKEN, else the token file; Some("") none.
    pub token: Option<String>,
    /// The cache only (HF_HUB_OFFLINE=1 says so too).
    pub local_files_only: bool,
    /// Called as bytes arrive; returning false stops the download (the bytes so far kept to
    /// be resumed), an error of status File.
    pub progress: Option<ProgressFn<'a>>,
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::invalid(format!("{}: contains a NUL byte", what)))
}

fn c_path(what: &str, p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| Error::invalid(format!("{}: contains a NUL byte", what)))
}

/// The string at p (valid during the call), "" for NULL.
fn string(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string valid during the callback.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// The caller's progress closure while a call runs, and a panic it raised.
struct Callback<'c, 'a> {
    progress: &'c (dyn Fn(&Progress) -> bool + 'a),
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// tf_hub_progress_fn over a Callback: a panic stops the download and is raised again by
/// `resolve` once the C call has returned (it must not unwind through C).
unsafe extern "C" fn on_progress(p: *const ffi::tf_hub_progress, user: *mut c_void) -> i32 {
    // SAFETY: user is the Callback that resolve passed, alive during the call; p is the
    // library's report, valid during this callback, its fields within struct_size.
    let (callback, p) = unsafe { (&mut *(user as *mut Callback<'_, '_>), &*p) };
    if p.struct_size < std::mem::size_of::<ffi::tf_hub_progress>() || callback.panic.is_some() {
        return 1;
    }
    let report = Progress {
        repo_id: string(p.repo_id),
        file: string(p.file),
        file_index: usize::try_from(p.file_index).unwrap_or(0),
        file_count: usize::try_from(p.file_count).unwrap_or(0),
        file_bytes: count(p.file_bytes),
        file_size: count(p.file_size),
        bytes: count(p.bytes),
        total_bytes: count(p.total_bytes),
        waiting: p.waiting != 0,
    };
    match panic::catch_unwind(AssertUnwindSafe(|| (callback.progress)(&report))) {
        Ok(go_on) => i32::from(!go_on),
        Err(payload) => {
            callback.panic = Some(payload);
            1
        }
    }
}

/// The folder of the Hub id repo_id ("name" or "org/name") at opts.revision: from the
/// cache, or downloaded into it. The library's errors: InvalidArgument (not an id, a bad
/// revision), NotFound (no such repository, revision or file; a private one without a token
/// that may read it), File (the network, a file), Unsupported (pytorch_model.bin and no
/// model.safetensors).
pub fn resolve(repo_id: &str, opts: &HubOptions<'_>) -> Result<PathBuf> {
    call(ffi::tf_hub_resolve, c_string("repo_id", repo_id)?, opts)
}

/// The library's resolver of this signature (tf_hub_resolve, tf_model_resolve) on name.
type Resolver = unsafe extern "C" fn(*const c_char, *const ffi::tf_hub_options, *mut c_char,
                                     usize, *mut usize) -> ffi::tf_status;

fn call(resolver: Resolver, id: CString, opts: &HubOptions<'_>) -> Result<PathBuf> {
    layout::check()?;
    let revision = opts.revision.as_deref().map(|r| c_string("revision", r)).transpose()?;
    let cache = opts.cache_dir.as_deref().map(|c| c_path("cache_dir", c)).transpose()?;
    let endpoint = opts.endpoint.as_deref().map(|e| c_string("endpoint", e)).transpose()?;
    let token = opts.token.as_deref().map(|t| c_string("token", t)).transpose()?;
    let mut o = layout::init(ffi::tf_hub_options_init_sized);
    o.revision = revision.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    o.cache_dir = cache.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    o.endpoint = endpoint.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    o.token = token.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    o.local_files_only = i32::from(opts.local_files_only);
    let mut callback = opts.progress.as_deref().map(|progress| Callback { progress, panic: None });
    if let Some(c) = callback.as_mut() {
        o.progress = Some(on_progress);
        o.progress_user_data = c as *mut Callback<'_, '_> as *mut c_void;
    }
    let mut dir = vec![0u8; PATH_BYTES];
    let mut len = 0usize;
    // SAFETY: every string in o lives until the call returns; dir holds PATH_BYTES bytes;
    // the callback's user data is callback, alive and not otherwise borrowed during the call.
    let status =
        unsafe { resolver(id.as_ptr(), &o, dir.as_mut_ptr() as *mut c_char, dir.len(), &mut len) };
    if let Some(payload) = callback.and_then(|c| c.panic) {
        panic::resume_unwind(payload);
    }
    check(status)?;
    dir.truncate(len);
    Ok(PathBuf::from(OsStr::from_bytes(&dir)))
}

/// The folder name_or_path names, as the library's tf_model_resolve reads it for every
/// surface (and as sentence-transformers and transformers take one): the path itself when
/// something is there; else the folder of the Hub id it is (`resolve`). A name that is
/// neither is an error of status File saying both; the Hub's errors keep their status, their
/// message after "<name>: no such folder; as a Hub id: ". A path on disk with
/// opts.revision is InvalidArgument (a path has no revisions).
pub fn model_folder(name_or_path: &str, opts: &HubOptions<'_>) -> Result<PathBuf> {
    call(ffi::tf_model_resolve, c_path("name_or_path", Path::new(name_or_path))?, opts)
}
