"""Python values checked at the boundary to C: ctypes would silently wrap an
integer that does not fit its C type (2**32 + 16 as an int32 is 16), turn
any object into a truth value, and end a C string at its first NUL ("a\0b"
read as "a"), and list() would read a str as its characters, a dict as its
keys and a set in no set order; these raise instead, naming the argument and
its value."""
import collections.abc
import numbers
import os

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


def utf8(text, name):
    """text (str, or bytes as they are) as UTF-8 bytes, whole: for a C call
    that takes the bytes with their length."""
    if isinstance(text, bytes):
        return text
    if not isinstance(text, str):
        raise TypeError(f"{name}: expected str or bytes, got {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:  # lone surrogates
        raise ValueError(f"{name}: not encodable as UTF-8: {e}") from None


def _no_nul(data, name):
    at = data.find(b"\0")
    if at >= 0:
        raise ValueError(f"{name}: a NUL character at byte {at} of {len(data)}; the library "
                         f"takes this argument as a NUL-terminated string, which would end "
                         f"there")
    return data


def c_string(text, name):
    """text as utf8() gives it, for a C call that takes a NUL-terminated
    string: a NUL inside is refused (ValueError), never a cut."""
    return _no_nul(utf8(text, name), name)


def c_path(path, name="path"):
    """A path (str, bytes or os.PathLike) as the file system's bytes, NUL-terminated."""
    try:
        data = os.fsencode(path)
    except TypeError:
        raise TypeError(f"{name}: expected a path (str, bytes or os.PathLike), got "
                        f"{type(path).__name__}") from None
    return _no_nul(data, name)


def items(value, name, expected):
    """value's items as a list, in order: a list, tuple, numpy array or any
    other ordered iterable (a generator). A str or bytes (its characters), a
    dict (its keys), a set (no order), None or anything not iterable is a
    TypeError naming the argument, `expected` saying what it takes."""
    if not isinstance(value, (str, bytes, collections.abc.Mapping, collections.abc.Set)):
        try:
            values = iter(value)
        except TypeError:  # None, a number, a 0-d array
            pass
        else:
            return list(values)
    raise TypeError(f"{name}: expected {expected}, got {type(value).__name__}")


def text_items(value, name, convert):
    """(each text as convert(text, its name) gives it, single): a str or
    bytes is one text (single True, named `name`); else the items() of
    value, named name[i]: sentence-transformers' and transformers' forms."""
    if isinstance(value, (str, bytes)):
        return [convert(value, name)], True
    values = items(value, name, "a str, bytes or a list of them")
    return [convert(t, f"{name}[{i}]") for i, t in enumerate(values)], False


def text_pair_items(text_value, pair_value, names, convert):
    """(texts, pairs or None, single) as text_items() gives them; the pairs take
    their texts' form, as transformers' tokenizer __call__ has it: a str
    pairs with a str, a list with a list of as many (TypeError, ValueError)."""
    text_name, pair_name = names
    first, single = text_items(text_value, text_name, convert)
    if pair_value is None:
        return first, None, single
    if single != isinstance(pair_value, (str, bytes)):
        want = "a str or bytes" if single else f"a list of {len(first)} texts"
        raise TypeError(f"{pair_name}: expected {want}, as {text_name} is, got "
                        f"{type(pair_value).__name__}")
    second = text_items(pair_value, pair_name, convert)[0]
    if len(second) != len(first):
        raise ValueError(f"{pair_name}: expected one for each of the {len(first)} {text_name}, "
                         f"got {len(second)}")
    return first, second, single
