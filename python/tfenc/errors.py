"""Exceptions: every failure of the C library is a TfencError carrying its
message, as a subclass per status. TF_ERR_<X> is <X>Error, X in CamelCase,
as Rust's Status::<X> (test_errors checks every status the library names).
One exception on both sides: TF_ERR_IO is FileError, what tfenc.h says it is
("reading or writing a file failed"), since IoError would differ from the
builtin IOError (OSError, which FileError is) by case alone."""


class TfencError(Exception):
    """A call into libtfenc failed. `status` is the C status name (e.g.
    "TF_ERR_SHAPE"); the message is the library's, naming the argument or
    tensor and both values."""

    status = "TF_ERR_UNKNOWN"

    def __init__(self, message, status=None):
        super().__init__(message)
        if status:
            self.status = status


class InvalidArgumentError(TfencError, ValueError):
    status = "TF_ERR_INVALID_ARGUMENT"


class ShapeError(TfencError, ValueError):
    status = "TF_ERR_SHAPE"


class OutOfMemoryError(TfencError, MemoryError):
    status = "TF_ERR_OUT_OF_MEMORY"


class FileError(TfencError, OSError):
    status = "TF_ERR_IO"


class FormatError(TfencError, ValueError):
    status = "TF_ERR_FORMAT"


class UnsupportedError(TfencError):
    status = "TF_ERR_UNSUPPORTED"


class NotFoundError(TfencError, KeyError):
    status = "TF_ERR_NOT_FOUND"

    def __str__(self):  # KeyError would quote the message
        return self.args[0]


_BY_STATUS = {cls.status: cls for cls in (InvalidArgumentError, ShapeError, OutOfMemoryError,
                                          FileError, FormatError, UnsupportedError,
                                          NotFoundError)}


def error_for(status, message):
    """The exception of a status named as tf_status_name names it."""
    return _BY_STATUS.get(status, TfencError)(message, status)
