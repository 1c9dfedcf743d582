// gen_stride.js — writes stride.json beside five of gen_cases.js's
// tokenizer.json files: truncation with a stride and the overflowing
// windows, as Hugging Face's tokenizers makes them, which
// tests/test_tokenizer_stride.c compares row for row.
//
//   cd tests/tokenizer_json && npm ci && node gen_cases.js && node gen_stride.js [FILE]
//
// Reference: the Rust `tokenizers` library (0.22.2, through its Node binding
// @anush008/tokenizers 0.6.0): setTruncation(max_length, {strategy,
// direction, stride}), then each encoding's rows as transformers' fast
// tokenizer flattens return_overflowing_tokens=True: the encoding, then its
// getOverflowing() in order (their own nested overflowing left out, as
// transformers' _convert_encoding does). @huggingface/tokenizers (the JS
// port) has neither stride nor overflowing tokens.
//
// Files: bert_uncased (WordPiece, TemplateProcessing), bert_cased
// (WordPiece, BertProcessing), qwen3 (byte-level BPE, ByteLevel
// processor), roberta (byte-level BPE, RobertaProcessing), unigram
// (Unigram with Precompiled; TemplateProcessing whose $B has type 0). For
// each: every strategy, Left and Right, four (max_length, stride), on
// single texts and pairs taken from cases.json (texts whose offsets
// tokenizers and libtfenc count alike: no combining marks, unchanged by
// NFKC). A setting tokenizers refuses is a case with "error": its message,
// or "panic" where tokenizers asserts (stride >= a window: the binding
// aborts, so each such case is predicted here and its abort confirmed in a
// child process). The offsets are tokenizers' with the post-processor's
// trim_offsets off (libtfenc does not trim: see tfenc.h); the ids are
// checked to be the file's own. check_rust_stride.txt holds 12 of the
// LongestFirst, Right cases as TSV for the Rust binding's test (the crate
// parses no JSON): max_length, stride, text, pair ("-" for none), then each
// row's ids and type ids ("ids|type ids", rows split by ";").
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { Tokenizer } = require('@anush008/tokenizers');

const data_dir = path.join(__dirname, '..', 'data', 'tokenizer_json');
const files = ['bert_uncased', 'bert_cased', 'qwen3', 'roberta', 'unigram'];
const strategies = ['LongestFirst', 'OnlyFirst', 'OnlySecond'];
const directions = ['Right', 'Left'];
let long_text = null; // the longer single text of the file being made
const settings = [[9, 0], [9, 3], [14, 5], [24, 11]]; // [max_length, stride]

// Whether tokenizers counts this text's offsets as libtfenc does.
function plain(text) {
  return !/\p{M}/u.test(text) && text.normalize('NFKC') === text;
}

async function lengths(tok, a, b) {
  const e = await tok.encode(a, b === undefined ? null : b, { addSpecialTokens: false });
  if (b === undefined) return [e.getLength(), 0];
  const seq = e.getSequenceIds();
  return [seq.filter(s => s === 0).length, seq.filter(s => s === 1).length];
}

// The inputs of a file: single texts of 12..40 tokens, one of 80..160, pairs
// of 14..50.
async function inputs(tok, cases) {
  const singles = [], pairs = [];
  let long = null;
  for (const c of cases) {
    if (!plain(c.text) || (c.pair !== undefined && !plain(c.pair))) continue;
    const [na, nb] = await lengths(tok, c.text, c.pair);
    if (c.pair === undefined) {
      if (na >= 12 && na <= 40 && singles.length < 4) singles.push([c.text]);
      else if (na > 80 && na < 160 && !long) long = [c.text];
    } else if (na + nb >= 14 && na + nb <= 50 && pairs.length < 4) pairs.push([c.text, c.pair]);
  }
  if (long) singles.push(long), long_text = long[0];
  pairs.push(['', 'only the second text of this pair is long enough to cut']);
  return singles.concat(pairs);
}

// Whether tokenizers' Encoding::truncate asserts (stride >= its max_len)
// for these lengths: the windows truncate_encodings gives each sequence
// (tokenizers/src/utils/truncation.rs).
function asserts(na, nb, has_pair, room, strategy, stride) {
  if (na + nb <= room) return false;
  const cut = (n, w) => n > w && w > 0 && stride >= w;
  if (strategy === 'LongestFirst' && has_pair) {
    let n1 = Math.min(na, nb), n2 = Math.max(na, nb);
    n2 = n1 > room ? n1 : Math.max(n1, room - n1);
    if (n1 + n2 > room) { n1 = Math.floor(room / 2); n2 = n1 + room % 2; }
    const [wa, wb] = na > nb ? [n2, n1] : [n1, n2];
    return cut(na, wa) || cut(nb, wb);
  }
  if (strategy === 'LongestFirst') return cut(na, room);
  const n = strategy === 'OnlyFirst' ? na : nb;
  const remove = na + nb - room;
  return has_pair || strategy === 'OnlyFirst' ? n > remove && cut(n, n - remove) : false;
}

// The rows of an encoding, each without the padding the file's own padding
// gives an overflowing row (attention 0): libtfenc pads every row to the
// longest and gives each row's length.
function rows_of(e) {
  const row = x => {
    const real = x.getAttentionMask().map((m, i) => (m ? i : -1)).filter(i => i >= 0);
    const keep = a => real.map(i => a[i]);
    return { ids: keep(x.getIds()), type_ids: keep(x.getTypeIds()), offsets: keep(x.getOffsets()) };
  };
  return [row(e), ...e.getOverflowing().map(row)];
}

// The file without trim_offsets in its post-processor (the ids are the same).
function untrimmed_path(name, json) {
  const j = JSON.parse(JSON.stringify(json));
  if (j.post_processor && 'trim_offsets' in j.post_processor) j.post_processor.trim_offsets = false;
  const p = path.join(require('os').tmpdir(), `tfenc-gen-stride-${name}.json`);
  fs.writeFileSync(p, JSON.stringify(j));
  return p;
}

// Confirms in a child process that tokenizers aborts on this case.
function confirm_abort(file, max_length, opts, a, b) {
  const script = `const { Tokenizer } = require('@anush008/tokenizers');
    const t = Tokenizer.fromFile(process.argv[1]);
    t.setTruncation(${max_length}, ${JSON.stringify(opts)});
    t.encode(process.argv[2], process.argv.length > 3 ? process.argv[3] : null).then(() => process.exit(0));`;
  try {
    execFileSync(process.execPath, ['-e', script, file, a, ...(b === undefined ? [] : [b])],
                 { cwd: __dirname, stdio: 'ignore' });
  } catch (e) {
    return; // it aborted
  }
  throw new Error(`${file}: expected tokenizers to abort on ${JSON.stringify([a, b])} ${JSON.stringify(opts)}`);
}

async function make(name) {
  long_text = null;
  const dir = path.join(data_dir, name);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
  const cases_in = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8')).cases;
  const file = untrimmed_path(name, json);
  const tok = Tokenizer.fromFile(file), own = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const whole = Tokenizer.fromFile(file); // untruncated: the lengths
  const ins = await inputs(whole, cases_in);
  const added = [await tok.encode('', null), await tok.encode('', '')].map(e => e.getLength());
  const out = [];
  let panics = 0, errors = 0;
  for (const strategy of strategies) for (const direction of directions) {
    for (const [max_length, stride] of settings) {
      const opts = { strategy, direction: direction.toLowerCase(), stride };
      if (stride >= max_length - added[0]) continue; // refused by setTruncation (stride == it: asserts)
      tok.setTruncation(max_length, opts);
      own.setTruncation(max_length, opts);
      for (const [a, b] of ins) {
        if (a === long_text && max_length < 24) continue; // its rows: max_length 24 only
        const c = { strategy, direction, max_length, stride, text: a };
        if (b !== undefined) c.pair = b;
        const [na, nb] = await lengths(whole, a, b);
        if (asserts(na, nb, b !== undefined, max_length - added[b === undefined ? 0 : 1], strategy,
                    stride)) {
          confirm_abort(file, max_length, opts, a, b);
          c.error = 'panic';
          panics++;
        } else {
          try {
            const e = await tok.encode(a, b === undefined ? null : b);
            c.rows = rows_of(e);
            const mine = rows_of(await own.encode(a, b === undefined ? null : b));
            if (JSON.stringify(mine.map(r => r.ids)) !== JSON.stringify(c.rows.map(r => r.ids)))
              throw new Error(`${name}: trim_offsets changed the ids of ${JSON.stringify([a, b])}`);
          } catch (e) {
            if (!/Sequence|sequence/.test(String(e))) throw e;
            c.error = String(e.message || e);
            errors++;
          }
        }
        out.push(c);
      }
    }
  }
  fs.unlinkSync(file);
  fs.writeFileSync(path.join(dir, 'stride.json'), JSON.stringify({
    made_by: 'tests/tokenizer_json/gen_stride.js: tokenizers (Rust 0.22.2, @anush008/tokenizers ' +
             '0.6.0), rows as transformers flattens return_overflowing_tokens',
    cases: out }) + '\n');
  const tsv = out.filter(c => c.rows && c.strategy === 'LongestFirst' && c.direction === 'Right' &&
                             !/[\t\n\r;|]/.test(c.text + (c.pair || '')) && c.pair !== '-')
    .slice(0, 12).map(c => [c.max_length, c.stride, c.text, c.pair === undefined ? '-' : c.pair,
      c.rows.map(r => r.ids.join(' ') + '|' + r.type_ids.join(' ')).join(';')].join('\t') + '\n');
  fs.writeFileSync(path.join(dir, 'check_rust_stride.txt'), tsv.join(''));
  const rows = out.reduce((n, c) => n + (c.rows ? c.rows.length : 0), 0);
  console.log(`${name}: ${out.length} cases (${ins.length} inputs), ${rows} rows, ` +
              `${errors} refused, ${panics} aborts`);
}

async function main() {
  const only = process.argv[2]; // one file's name: that file alone
  for (const name of files) if (!only || name === only) await make(name);
}

main().catch(e => { console.error(e); process.exit(1); });
