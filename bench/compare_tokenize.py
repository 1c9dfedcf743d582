#!/usr/bin/python3
"""compare_tokenize.py — tfenc-bench --tokenize beside Hugging Face's JS
tokenizers (bench/tokenize_js.mjs) on the same files and texts: for each
algorithm's fixture and text, ROUNDS rounds, each round ours then theirs
(the order flipped every round), one process per measurement (one warm-up
encode, then the median of the timed encodes, as both scripts time). Prints
each side's median MB/s over the rounds and the ratio, as a Markdown table.

  bench/compare_tokenize.py [--bench build/bench/tfenc-bench]
      [--tokenizers-js /tmp/tokjs/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs]
      [--rounds 3] [--min-time 1]

The JS package is installed outside the repository:
  npm install --prefix /tmp/tokjs @huggingface/tokenizers
The JS port reads no vocab.txt: the vocab.txt row runs it on
bert_uncased/tokenizer.json, the same tokenizer (tests/tokenizer_json/gen_cases.js)."""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The JS side of a fixture that has no tokenizer.json of its own.
JS_EQUIVALENT = {
    'tests/data/wordpiece/vocab.txt': 'tests/data/tokenizer_json/bert_uncased/tokenizer.json'}


def mb_per_s(line):
    """The MB/s of a 'tokenize...' line (the word before 'MB/s')."""
    words = line.split()
    return float(words[words.index('MB/s') - 1])


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=dict(os.environ, OPENBLAS_NUM_THREADS='1')).stdout
    return [l for l in out.splitlines() if l.startswith('tokenize')]


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--bench', default=os.path.join(ROOT, 'build', 'bench', 'tfenc-bench'))
    p.add_argument('--tokenizers-js',
                   default='/tmp/tokjs/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs')
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--min-time', default='1')
    a = p.parse_args()
    # the fixtures and texts, as tfenc-bench lists them
    cases = []
    for line in run([a.bench, '--tokenize', 'all', '--min-time', '0']):
        w = line.split()
        cases.append((w[1], w[2], w[-2], w[-1]))
    js_script = os.path.join(ROOT, 'bench', 'tokenize_js.mjs')
    rows = []
    for name, text_name, path, text in cases:
        rel = os.path.relpath(path, ROOT)
        js_path = os.path.join(ROOT, JS_EQUIVALENT.get(rel, rel))
        ours, theirs = [], []
        for r in range(a.rounds):
            ours_cmd = [a.bench, '--tokenize', path, '--text-file', text, '--min-time', a.min_time]
            js_cmd = ['node', js_script, a.tokenizers_js, js_path, text, name, text_name,
                      a.min_time]
            for cmd, into in ([(ours_cmd, ours), (js_cmd, theirs)] if r % 2 == 0
                              else [(js_cmd, theirs), (ours_cmd, ours)]):
                into.append(mb_per_s(run(cmd)[0]))
        o, t = statistics.median(ours), statistics.median(theirs)
        rows.append((name, text_name, o, t))
        print(f'{name} {text_name}: tfenc {ours} JS {theirs}', file=sys.stderr, flush=True)
    print('| tokenizer | text | tfenc MB/s | @huggingface/tokenizers MB/s | tfenc / JS |')
    print('|---|---|---:|---:|---:|')
    for name, text_name, o, t in rows:
        print(f'| {name} | {text_name} | {o:.2f} | {t:.2f} | {o / t:.2f} |')


if __name__ == '__main__':
    main()
