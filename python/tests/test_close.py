"""close() while other threads call into the same Encoder or Tokenizer: it
waits for the running calls, and later calls raise "this ... is closed";
never a use-after-free. The races run in a subprocess, so that a crash of
the interpreter shows as a test failure."""
import subprocess
import sys
import threading
import time

import pytest

import tfenc
from tfenc._handle import Handle
from conftest import ROOT

RACE = """
import sys, threading
import numpy as np
sys.path.insert(0, {python!r})
import tfenc

ROUNDS, THREADS = 20, 6


def race(make, call, kind):
    '''THREADS threads call `call` on a fresh object until it is closed,
    while the main thread closes it just after each has made one call.'''
    for r in range(ROUNDS):
        obj = make(r)
        want = call(obj)
        ready, wrong = threading.Barrier(THREADS + 1), []

        def work():
            first = True
            while True:
                try:
                    got = call(obj)
                except ValueError as e:
                    if str(e) != f"this {{kind}} is closed":
                        wrong.append(repr(e))
                    return
                if not np.array_equal(got, want):
                    wrong.append("a result differs from the serial one")
                if first:
                    ready.wait()
                    first = False

        threads = [threading.Thread(target=work) for _ in range(THREADS)]
        for t in threads:
            t.start()
        ready.wait()
        obj.close()
        for t in threads:
            t.join()
        assert not wrong, wrong


x = np.random.default_rng(0).standard_normal((2, 24, 128)).astype(np.float32)
race(lambda r: tfenc.Encoder(128, 4, 512, 2, seed=r), lambda e: e(input_embeds=x).last_hidden_state,
     "Encoder")
texts = ["the quick brown fox jumps over the lazy dog " * 20] * 8
race(lambda r: tfenc.Tokenizer({vocab!r}), lambda t: t(texts)["input_ids"], "Tokenizer")
print("no crash, no wrong result")
"""


def test_close_while_other_threads_call(vocab_path):
    script = RACE.format(python=f"{ROOT}/python", vocab=vocab_path)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600)
    assert (run.returncode, run.stdout.strip()) == (0, "no crash, no wrong result"), run.stderr


CLOSE_IN_TRACE = """
import sys
import numpy as np
sys.path.insert(0, {python!r})
import tfenc
from tfenc import _lib

enc = tfenc.Encoder(16, 2, 32, 1)
errors = []
original = _lib.TRACE_FN


def closing(record):
    def close_then_record(event, user):
        try:
            enc.close()
        except RuntimeError as e:
            errors.append(str(e))
        record(event, user)
    return original(close_then_record)


_lib.TRACE_FN = closing
out = enc(input_embeds=np.ones((1, 3, 16), np.float32), trace=True)
print(len(errors) == len(out.trace), errors[0])
enc.close()
"""


def test_close_inside_a_call_on_the_same_thread_is_refused():
    """A trace callback that closes its encoder would wait for itself."""
    script = CLOSE_IN_TRACE.format(python=f"{ROOT}/python")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ("True close() of this Encoder inside a call on it (e.g. from "
                                  "a trace callback)")


def test_calls_after_close_raise(vocab_path):
    with tfenc.Encoder(8, 2, 8) as enc:
        assert enc.config["d_model"] == 8
    for call in (lambda: enc.config, lambda: enc.keys(), lambda: enc["layers.0.norm1.weight"],
                 lambda: enc.save("never-written.safetensors")):
        with pytest.raises(ValueError, match="^this Encoder is closed$"):
            call()
    enc.close()  # again: nothing to do
    with tfenc.Tokenizer(vocab_path) as tok:
        assert tok.encode("a") == [12, 79, 13]
    for call in (lambda: tok.encode("a"), lambda: tok.vocab_size, lambda: tok.id_to_token(1),
                 lambda: tok.token_to_id("a")):
        with pytest.raises(ValueError, match="^this Tokenizer is closed$"):
            call()


def test_close_waits_for_the_running_borrow_and_frees_once():
    freed, inside, leave = [], threading.Event(), threading.Event()
    handle = Handle("pointer", freed.append, "Thing")

    def borrower():
        with handle.borrow() as ptr:
            assert ptr == "pointer"
            inside.set()
            leave.wait()
    b = threading.Thread(target=borrower)
    b.start()
    inside.wait()
    closer = threading.Thread(target=handle.close)
    closer.start()
    while handle._ptr is not None:  # until close() has begun: new borrows fail from here
        time.sleep(0.001)
    with pytest.raises(ValueError, match="^this Thing is closed$"):
        with handle.borrow():
            pass
    assert freed == [] and closer.is_alive()  # still waiting for the borrower
    leave.set()
    b.join()
    closer.join()
    handle.close()
    assert freed == ["pointer"]
