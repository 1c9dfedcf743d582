"""Shared paths for the Python binding's tests: the package in this tree
(python/), and the project's test data."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
DATA = os.path.join(ROOT, "tests", "data")
GOLDEN = os.path.join(ROOT, "tests", "golden")


@pytest.fixture
def bert_dir():
    return os.path.join(DATA, "bert_tiny")


@pytest.fixture
def vocab_path():
    return os.path.join(DATA, "wordpiece", "vocab.txt")
