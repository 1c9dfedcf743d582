"""Progress over a call's batches, as sentence-transformers shows it: tqdm's
bar when tqdm can be imported (Debian's python3-tqdm), else a plain line on
stderr. show_progress_bar None shows it only when stderr is a terminal;
True always; False never."""
import sys

from ._args import flag


class _Silent:
    def update(self, n=1):
        pass

    def close(self):
        pass


class _Plain:
    """"\\r<desc>: <done>/<total>" on stderr, rewritten after each batch."""

    def __init__(self, total, desc):
        self.done, self.total, self.desc = 0, total, desc
        self._write()

    def _write(self):
        sys.stderr.write(f"\r{self.desc}: {self.done}/{self.total}")
        sys.stderr.flush()

    def update(self, n=1):
        self.done += n
        self._write()

    def close(self):
        sys.stderr.write("\n")
        sys.stderr.flush()


def progress(total, show_progress_bar, desc="Batches"):
    """An object with update(n) and close() over `total` steps."""
    if show_progress_bar is None:
        show = sys.stderr is not None and sys.stderr.isatty()
    else:
        show = flag(show_progress_bar, "show_progress_bar")
    if not show:
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Plain(total, desc)
    return tqdm(total=total, desc=desc)
