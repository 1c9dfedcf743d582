"""A C handle shared by Python threads. ctypes releases the GIL during a
call, so without this guard close() on one thread frees a handle that a
forward call on another is still reading."""
import contextlib
import threading


class Handle:
    """Owns one C pointer. Calls borrow it (`with handle.borrow() as ptr:`);
    close() stops new borrows, waits until the running ones have returned,
    then frees the pointer once. Borrowing after close raises ValueError
    "this <kind> is closed"."""

    def __init__(self, ptr, destroy, kind):
        self._ptr, self._destroy, self._kind = ptr, destroy, kind
        self._changed = threading.Condition()
        self._borrowers = {}  # thread id -> borrows running on that thread

    @contextlib.contextmanager
    def borrow(self):
        me = threading.get_ident()
        with self._changed:
            if self._ptr is None:
                raise ValueError(f"this {self._kind} is closed")
            ptr = self._ptr
            self._borrowers[me] = self._borrowers.get(me, 0) + 1
        try:
            yield ptr
        finally:
            with self._changed:
                self._borrowers[me] -= 1
                if not self._borrowers[me]:
                    del self._borrowers[me]
                    self._changed.notify_all()

    def close(self):
        with self._changed:
            if threading.get_ident() in self._borrowers:  # waiting would never end
                raise RuntimeError(f"close() of this {self._kind} inside a call on it (e.g. "
                                   "from a trace callback)")
            ptr, self._ptr = self._ptr, None
            self._changed.wait_for(lambda: not self._borrowers)
        if ptr:
            self._destroy(ptr)


class Borrowed:
    """A pointer that an owner's handle holds (a pipeline's tokenizer):
    borrow() borrows through owner._borrow(), whichever handle the owner
    holds then, and yields get(its pointer); close() leaves it to the owner."""

    def __init__(self, owner, get):
        self._owner, self._get = owner, get

    @contextlib.contextmanager
    def borrow(self):
        with self._owner._borrow() as ptr:
            yield self._get(ptr)

    def close(self):
        pass


class Owner:
    """close(), `with` and collection for a class whose C handle is
    self._handle (a Handle)."""

    def close(self):
        """Frees the C handle now, after the calls running on other threads
        have returned; later calls raise ValueError. Also done at the end
        of a `with` block and when the object is collected."""
        handle = getattr(self, "_handle", None)  # None: __init__ failed
        if handle is not None:
            handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
