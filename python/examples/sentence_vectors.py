#!/usr/bin/python3
"""Sentence vectors from a sentence-transformers folder, as sentence-transformers'
quickstart computes them: encode the texts, then their similarity matrix by
the folder's similarity_fn_name (cosine unless it says otherwise).

    PYTHONPATH=python /usr/bin/python3 python/examples/sentence_vectors.py MODEL_DIR \\
        "The cat sat on the mat." "A cat was sitting on a mat." "Stock prices fell."
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tfenc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a sentence-transformers folder (modules.json, ...) or a "
                                  "Hugging Face model folder (mean pooling)")
    ap.add_argument("texts", nargs="+")
    ap.add_argument("--prompt-name", help="one of the folder's prompts, e.g. query")
    ap.add_argument("--truncate-dim", type=int, help="keep the first values of each vector")
    ap.add_argument("--normalize", action="store_true", help="scale each vector to unit length")
    args = ap.parse_args()
    with tfenc.SentenceTransformer(args.model, truncate_dim=args.truncate_dim) as model:
        embeddings = model.encode(args.texts, prompt_name=args.prompt_name,
                                  normalize_embeddings=args.normalize)  # [N, D]
        print(f"{len(args.texts)} sentences -> vectors of {embeddings.shape[1]} floats, "
              f"{model.similarity_fn_name} similarity")
        similarities = model.similarity(embeddings, embeddings)  # [N, N]
    for i, text in enumerate(args.texts):
        row = " ".join(f"{s:6.3f}" for s in similarities[i])
        print(f"  {row}   {text}")


if __name__ == "__main__":
    main()
