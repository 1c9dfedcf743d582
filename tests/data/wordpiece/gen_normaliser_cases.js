// gen_normaliser_cases.js — writes normaliser_cases.json: the ids that Hugging Face's
// tokenizers library (the Rust code behind BertTokenizerFast, through its Node binding)
// gives for texts that exercise BERT's normaliser, under each combination of lowercase
// and strip_accents, with this directory's vocab.txt.
//
//   mkdir -p /tmp/tok && cd /tmp/tok && npm install tokenizers@0.23.2
//   NODE_PATH=/tmp/tok/node_modules node gen_normaliser_cases.js > normaliser_cases.json
//
// The tokenizer is the one transformers' BertConverter builds for
// BertTokenizerFast(vocab.txt, do_lower_case=..., strip_accents=...): BertNormalizer,
// BertPreTokenizer, WordPiece (max 100 characters a word), [CLS] $A [SEP].
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');

const TEXTS = [
  '\uF967',                          // CJK compatibility ideograph: NFD gives U+4E0D
  '我\uF967是',
  '\u{2F800}',                       // CJK compatibility ideographs supplement
  'a\u{2B820}b a\u{2B920}b',         // the edges of the CJK extension ranges
  'İstanbul',                        // Turkish dotted capital I
  'DİYARBAKIR ısparta',
  'ΟΔΥΣΣΕΥΣ Σίσυφος',                 // Greek, final sigma
  'ὈΔΥΣΣΕΎΣ',
  'e\u0301 Cre\u0300me bru\u0302le\u0301e',  // combining marks
  'a\u0308\u0304 \u0301 x\u0323\u0307',
  'ＡＢＣ ｄｅｆ １２３！（ＴＥＳＴ）',      // full-width forms
  'Straße STRASSE ẞ',                // sharp s
  'ﬁnance ﬂower ﬀ Ǆ ǅ ǆ',            // ligatures, digraphs
  '\u212B \u2126 \u212A',            // angstrom, ohm, kelvin signs
  '한국어',                            // Hangul: NFD gives jamo
  'Tiếng Việt',
  'नमस्ते',
  'a\u2028b a\u2029b a\u0085b a\u00A0b a\u3000b a\u000Bb a\u000Cb',  // whitespace, controls
  'a\u200Bb a\u00ADb a\uFFFDb',  // format characters and U+FFFD vanish
  'a\u0378b \u{50000}x',           // unassigned code points stay (and are [UNK])
  'a\u{12FF1}b a\u166Db a\u061Db x\u1ABFy',  // classed otherwise since Unicode 9
  '¿Qué? «hi» — ‘x’ … 😀',
  'Ⅻ ① ²',
  '\u13A0\u13A1 \u1C90 ǅ',           // Cherokee, Georgian Mtavruli, titlecase
];

// [lowercase, strip_accents] as the library's options (-1 = as lowercase).
const MODES = [[1, -1], [0, -1], [1, 0], [0, 1]];

function tokenizerJson(vocab, lowercase, stripAccents, splitCjk = true) {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => ({
    id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true,
  }));
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials,
    normalizer: {
      type: 'BertNormalizer', clean_text: true, handle_chinese_chars: splitCjk,
      strip_accents: stripAccents < 0 ? null : stripAccents === 1, lowercase: lowercase === 1,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
               { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
             { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
             { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
      max_input_chars_per_word: 100, vocab,
    },
  });
}

// vocab.txt as { token: id }.
function readVocab() {
  const lines = fs.readFileSync(path.join(__dirname, 'vocab.txt'), 'utf8').split('\n');
  const vocab = {};
  lines.forEach((t, i) => { if (t !== '' || i < lines.length - 1) vocab[t] = i; });
  return vocab;
}

async function main() {
  const vocab = readVocab();
  const cases = [];
  for (const [lowercase, stripAccents] of MODES) {
    const tok = Tokenizer.fromString(tokenizerJson(vocab, lowercase, stripAccents));
    for (const text of TEXTS) {
      const e = await tok.encode(text);
      cases.push({ lowercase, strip_accents: stripAccents, text, ids: e.getIds(),
                   tokens: e.getTokens() });
    }
  }
  const out = {
    made_by: 'tests/data/wordpiece/gen_normaliser_cases.js: tokenizers 0.23.2 (npm, the Rust ' +
             'library behind BertTokenizerFast) with vocab.txt',
    cases,
  };
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}

module.exports = { tokenizerJson, readVocab };
if (require.main === module)
  main();
