"""Several Python threads on one Encoder: the same results as serial calls,
and the GIL is released while the C library works."""
import threading

import numpy as np

import tfenc


def test_threads_give_serial_results():
    enc = tfenc.Encoder(64, 4, 128, 2)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((2, 12, 64)).astype(np.float32) for _ in range(6)]
    expected = [enc(input_embeds=x).last_hidden_state for x in inputs]
    mismatches, errors = [], []

    def work(k):
        try:
            for i in range(20):
                j = (k + i) % len(inputs)
                if not np.array_equal(enc(input_embeds=inputs[j]).last_hidden_state, expected[j]):
                    mismatches.append(j)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not mismatches


def test_gil_is_released_during_forward():
    """A Python thread keeps running while forward computes (with the GIL
    held it could not run at all during the call)."""
    enc = tfenc.Encoder(256, 4, 1024, 2)
    x = np.random.default_rng(1).standard_normal((4, 256, 256)).astype(np.float32)
    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    during = []
    t = threading.Thread(target=count)
    t.start()
    try:
        for _ in range(3):
            before = ticks[0]
            enc(input_embeds=x)
            during.append(ticks[0] - before)
    finally:
        stop.set()
        t.join()
    assert max(during) > 0, during
