#!/usr/bin/python3
"""The attention weights of one layer: every head's [T, T] matrix for a
sentence (row = query token, column = key token; each row sums to 1).

    PYTHONPATH=python /usr/bin/python3 python/examples/attention_weights.py MODEL \\
        (--vocab vocab.txt "a sentence" | --ids 2,45,67,3) [--layer 0] [--npy out.npy]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tfenc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("text", nargs="?")
    ap.add_argument("--vocab", help="tokenize TEXT with this vocab.txt")
    ap.add_argument("--ids", help="or give token ids: 2,45,67,3")
    ap.add_argument("--layer", type=int, default=0)
    ap.add_argument("--npy", help="also save the weights [H, T, T] here")
    args = ap.parse_args()
    enc = tfenc.Encoder.from_file(args.model)
    if args.ids:
        ids = [int(i) for i in args.ids.split(",")]
        labels = [str(i) for i in ids]
    elif args.vocab and args.text is not None:
        tok = tfenc.Tokenizer(args.vocab)
        ids = tok.encode(args.text)
        labels = [tok.id_to_token(i) for i in ids]
    else:
        ap.error("give --vocab and a TEXT, or --ids")
    out = enc(np.array([ids]), output_attentions=True)
    weights = out.attentions[args.layer][0]  # [H, T, T]
    print(f"layers.{args.layer}.attn.weights: {weights.shape[0]} heads x "
          f"{weights.shape[1]} x {weights.shape[2]}")
    for h, head in enumerate(weights):
        print(f"head {h}:" + "".join(f"{label[:8]:>9}" for label in labels))
        for label, row in zip(labels, head):
            print(f"  {label[:8]:>8}" + "".join(f"{w:9.3f}" for w in row))
    if args.npy:
        np.save(args.npy, weights)


if __name__ == "__main__":
    main()
