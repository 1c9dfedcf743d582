//! The library's failures as a Rust error carrying its message.
use std::ffi::CStr;
use std::fmt;

use crate::enums::name_of;
use crate::ffi;

/// What kind of failure (the C library's tf_status). `TF_ERR_<X>` is `Status::<X>`, X in
/// CamelCase, as Python's `tfenc.<X>Error` (tests/names.rs checks every status the library
/// names). One exception on both sides: `TF_ERR_IO` is `File`, what tfenc.h says it is
/// ("reading or writing a file failed"), since Python's `IoError` would differ from its
/// builtin `IOError` (OSError) by case alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    InvalidArgument,
    Shape,
    OutOfMemory,
    File,
    Format,
    Unsupported,
    NotFound,
    /// A status of a library newer than this crate.
    Unknown(ffi::tf_status),
}

/// Every known status and its tf_status value.
const STATUSES: [(Status, ffi::tf_status); 7] = [
    (Status::InvalidArgument, ffi::TF_ERR_INVALID_ARGUMENT),
    (Status::Shape, ffi::TF_ERR_SHAPE),
    (Status::OutOfMemory, ffi::TF_ERR_OUT_OF_MEMORY),
    (Status::File, ffi::TF_ERR_IO),
    (Status::Format, ffi::TF_ERR_FORMAT),
    (Status::Unsupported, ffi::TF_ERR_UNSUPPORTED),
    (Status::NotFound, ffi::TF_ERR_NOT_FOUND),
];

impl Status {
    /// The status of a tf_status value (Unknown for one this crate does not know).
    pub fn from_code(code: ffi::tf_status) -> Status {
        STATUSES.iter().find(|&&(_, c)| c == code).map_or(Status::Unknown(code), |&(s, _)| s)
    }

    /// The C library's tf_status value.
    pub fn code(self) -> ffi::tf_status {
        match self {
            Status::Unknown(code) => code,
            known => STATUSES.iter().find(|&&(s, _)| s == known).map(|&(_, c)| c).expect("in STATUSES"),
        }
    }

    /// The library's name, e.g. "TF_ERR_SHAPE" ("TF_ERR_UNKNOWN" for Unknown).
    pub fn name(self) -> &'static str {
        name_of(ffi::tf_status_name, self.code()).expect("tf_status_name is never NULL")
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
        write!(f, "{}: {}", self.status.name(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Ok(()) for TF_OK, else the error with this thread's last message.
pub(crate) fn check(code: ffi::tf_status) -> Result<()> {
    if code == ffi::TF_OK {
        return Ok(());
    }
    // SAFETY: tf_last_error returns a valid NUL-terminated thread-local string.
    let message = unsafe { CStr::from_ptr(ffi::tf_last_error()) }.to_string_lossy().into_owned();
    Err(Error { status: Status::from_code(code), message })
}
