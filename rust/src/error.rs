//! The library's failures as a Rust error carrying its message.
use std::ffi::CStr;
use std::fmt;

use crate::ffi;

/// What kind of failure (the C library's tf_status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    InvalidArgument,
    Shape,
    OutOfMemory,
    Io,
    Format,
    Unsupported,
    NotFound,
    Unknown(i32),
}

impl Status {
    fn from_code(code: i32) -> Status {
        match code {
            1 => Status::InvalidArgument,
            2 => Status::Shape,
            3 => Status::OutOfMemory,
            4 => Status::Io,
            5 => Status::Format,
            6 => Status::Unsupported,
            7 => Status::NotFound,
            other => Status::Unknown(other),
        }
    }
}

/// A failed call: its status and the library's message, which names the
/// argument or tensor and both values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

impl Error {
    /// An error raised on the Rust side, before calling C.
    pub(crate) fn invalid(message: String) -> Error {
        Error { status: Status::InvalidArgument, message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Ok(()) for TF_OK, else the error with this thread's last message.
pub(crate) fn check(code: ffi::tf_status) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    // SAFETY: tf_last_error returns a valid NUL-terminated thread-local string.
    let message = unsafe { CStr::from_ptr(ffi::tf_last_error()) }.to_string_lossy().into_owned();
    Err(Error { status: Status::from_code(code), message })
}
