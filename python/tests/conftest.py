"""Shared paths for the Python binding's tests: the package in this tree
(python/), and the project's test data."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
DATA = os.path.join(ROOT, "tests", "data")
GOLDEN = os.path.join(ROOT, "tests", "golden")


@pytest.fixture(scope="module")
def st():
    """tests/data/pipelines/st_mean_norm as a SentenceEncoder."""
    import tfenc
    with tfenc.SentenceEncoder.from_dir(os.path.join(DATA, "pipelines", "st_mean_norm")) as enc:
        yield enc


@pytest.fixture(scope="module")
def clf():
    """tests/data/pipelines/classifier as a Classifier."""
    import tfenc
    with tfenc.Classifier.from_dir(os.path.join(DATA, "pipelines", "classifier")) as c:
        yield c


@pytest.fixture(scope="module")
def ce():
    """tests/data/pipelines/cross_encoder as a CrossEncoder."""
    import tfenc
    with tfenc.CrossEncoder.from_dir(os.path.join(DATA, "pipelines", "cross_encoder")) as c:
        yield c


@pytest.fixture
def bert_dir():
    return os.path.join(DATA, "bert_tiny")


@pytest.fixture
def vocab_path():
    return os.path.join(DATA, "wordpiece", "vocab.txt")
