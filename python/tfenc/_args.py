"""Python values checked at the boundary to C: ctypes would silently wrap an
integer that does not fit its C type (2**32 + 16 as an int32 is 16), and
turn any object into a truth value; these raise instead, naming the
argument and its value."""
import numbers

import numpy as np

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
UINT64_MAX = 2**64 - 1


def integer(value, name, lo=INT32_MIN, hi=INT32_MAX):
    """value as an int in [lo, hi] (by default int32's range). An int or a
    numpy integer; not a bool, a float or anything else (TypeError)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name}: expected an integer in [{lo}, {hi}], got {value}")
    return value


def flag(value, name):
    """value as a C boolean: True, False, 0 or 1 only."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                               and value in (0, 1)):
        return int(value)
    error = ValueError if isinstance(value, numbers.Integral) else TypeError
    raise error(f"{name}: expected a bool (True, False, 0 or 1), got {type(value).__name__} "
                f"{value!r}")
