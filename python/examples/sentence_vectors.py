#!/usr/bin/python3
"""Sentence vectors from a BERT directory: each text tokenized with the
directory's vocab.txt, run through the encoder, mean-pooled over its real
tokens and L2-normalised; prints the vectors' cosine similarities.

    PYTHONPATH=python /usr/bin/python3 python/examples/sentence_vectors.py BERT_DIR \\
        "The cat sat on the mat." "A cat was sitting on a mat." "Stock prices fell."
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tfenc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a Hugging Face BERT directory (model.safetensors, "
                                  "config.json, vocab.txt) or a model file")
    ap.add_argument("texts", nargs="+")
    ap.add_argument("--vocab", help="default: the model directory's vocab.txt")
    ap.add_argument("--cased", action="store_true")
    args = ap.parse_args()
    enc = tfenc.Encoder.from_file(args.model)
    tok = tfenc.Tokenizer(args.vocab or os.path.join(args.model, "vocab.txt"),
                          lowercase=not args.cased)
    vectors = enc.embed(args.texts, tok, pooling="mean", normalize=True)  # [N, D], unit rows
    print(f"{len(args.texts)} sentences -> vectors of {vectors.shape[1]} floats")
    similarity = vectors @ vectors.T  # cosines, since the rows have unit length
    for i, text in enumerate(args.texts):
        row = " ".join(f"{c:6.3f}" for c in similarity[i])
        print(f"  {row}   {text}")


if __name__ == "__main__":
    main()
