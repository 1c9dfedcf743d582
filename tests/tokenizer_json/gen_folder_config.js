// gen_folder_config.js — writes ../data/tokenizer_folders/cases.json: model
// folders whose tokenizer_config.json and special_tokens_map.json name
// special and added tokens beyond the tokenizer file's, and what
// transformers' fast tokenizer makes of texts with them, which
// tests/test_tokenizer_folders.c compares token for token.
//
//   cd tests/tokenizer_json && npm ci && node gen_folder_config.js
//
// Reference: the Rust `tokenizers` library (0.22.2, through its Node binding
// @anush008/tokenizers 0.6.0) does the matching, the ids of new tokens and
// the encoding. What transformers (4.4x) adds to it is written here from its
// source, step by step:
// - tokenization_utils_base.py, PreTrainedTokenizerBase._from_pretrained:
//   tokenizer_config.json gives the init arguments; with no
//   "added_tokens_decoder" in it, special_tokens_map.json's keys replace the
//   special token attributes and extend additional_special_tokens (those
//   not already listed); with one, special_tokens_map.json is not read;
// - tokenization_utils_fast.py, PreTrainedTokenizerFast.__init__: the
//   added_tokens_decoder entries (by id) the backend lacks, then
//   all_special_tokens_extended (bos, eos, unk, sep, pad, cls, mask, then
//   additional_special_tokens) the backend lacks, are added; special if
//   the token says so or is a special token attribute; a string special
//   token is AddedToken(content, special=True) (normalized false);
// - a folder with only vocab.txt is BertTokenizerFast converted from the
//   slow tokenizer (convert_slow_tokenizer.py, BertConverter.converted):
//   WordPiece with unk_token, BertNormalizer(clean_text, handle_chinese_chars
//   = tokenize_chinese_chars, strip_accents, lowercase = do_lower_case),
//   BertPreTokenizer, "cls $A sep" / "cls $A sep $B:1 sep:1", WordPiece
//   decoder; BertTokenizer's defaults are [UNK] [SEP] [PAD] [CLS] [MASK].
// Offsets are tokenizers' (in code points; the texts are such that
// libtfenc counts them alike), with the post-processor's trim_offsets off
// (libtfenc does not trim: see tfenc.h).
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer, AddedToken } = require('@anush008/tokenizers');

const data_dir = path.join(__dirname, '..', 'data');
const out_dir = path.join(data_dir, 'tokenizer_folders');
const ROLES = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token',
               'mask_token'];

// The folders. base: the tokenizer file copied in (relative to tests/data);
// drop_added: its added_tokens removed first; files: the JSON files beside it.
const folders = [
  {
    name: 'vocab_legacy',
    base: 'wordpiece/vocab.txt',
    files: {
      'tokenizer_config.json': {
        do_lower_case: false, model_max_length: 64, tokenize_chinese_chars: false,
        additional_special_tokens: ['[E1]', '[/E1]'],
      },
      'special_tokens_map.json': {
        unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[unused1]',
        mask_token: { content: '[MASK]', lstrip: true, rstrip: false, normalized: false,
                      single_word: false },
        additional_special_tokens: ['[/E1]', { content: '<ent>', lstrip: false, rstrip: true,
                                               normalized: false, single_word: true }],
      },
    },
  },
  {
    name: 'vocab_decoder',
    base: 'wordpiece/vocab.txt',
    files: {
      'tokenizer_config.json': {
        do_lower_case: true, strip_accents: false,
        cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]',
        mask_token: '[MASK]', additional_special_tokens: ['<new>'],
        added_tokens_decoder: {
          '0': { content: '[PAD]', lstrip: false, normalized: false, rstrip: false,
                 single_word: false, special: true },
          '100': { content: '[UNK]', lstrip: false, normalized: false, rstrip: false,
                   single_word: false, special: true },
          '103': { content: '[MASK]', lstrip: true, normalized: false, rstrip: false,
                   single_word: false, special: true },
          '6842': { content: 'Hello World', lstrip: false, normalized: true, rstrip: false,
                    single_word: false, special: false },
          '6841': { content: '<new>', lstrip: false, normalized: false, rstrip: false,
                    single_word: false, special: true },
        },
      },
      // not read: tokenizer_config.json has added_tokens_decoder
      'special_tokens_map.json': { cls_token: '[unused9]', additional_special_tokens: ['[X]'] },
    },
  },
  {
    name: 'json_roberta',
    base: 'tokenizer_json/roberta/tokenizer.json',
    files: {
      'tokenizer_config.json': {
        model_max_length: 512, pad_token: '<pad>',
        mask_token: { content: '<mask>', lstrip: true, normalized: false },
        additional_special_tokens: ['<extra_1>', { content: '<extra_2>', lstrip: true,
                                                   rstrip: true, normalized: false }],
      },
    },
  },
  {
    name: 'json_bert_bare',
    base: 'tokenizer_json/bert_uncased/tokenizer.json',
    drop_added: true,
    files: {
      'tokenizer_config.json': { model_max_length: 128 },
      'special_tokens_map.json': {
        unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]',
        mask_token: '[MASK]', additional_special_tokens: ['<Q>'],
      },
    },
  },
];

const texts = [
  'Hello World, said [CLS] to [SEP].',
  'a [MASK] here and   [MASK] there',
  'tag [E1]Paris[/E1] in text, hello world',
  '<ent> as a word, x<ent>y inside one, <ent>  twice',
  'the [unused1] token and [unused9] [X]',
  '<new> and <Q> and <extra_1><extra_2> and  <extra_2>  spaced',
  'a <mask> b <pad> c <s> d',
  'Ünïcödé Straße 東京 hello',
];
const pairs = [['[MASK] first', 'second [E1] <ent>'], ['Hello World', 'hello world <new>']];

// The init arguments transformers ends with (_from_pretrained).
function init_args(folder) {
  const config = folder.files['tokenizer_config.json'] || {};
  const args = JSON.parse(JSON.stringify(config));
  const map = folder.files['special_tokens_map.json'];
  if (!('added_tokens_decoder' in config) && map) {
    for (const [key, value] of Object.entries(map)) {
      if (key === 'additional_special_tokens') {
        const list = args.additional_special_tokens || [];
        for (const t of value)
          if (!list.some(u => content(u) === content(t))) list.push(t);
        args.additional_special_tokens = list;
      } else {
        args[key] = value;
      }
    }
  }
  return args;
}

function content(t) { return typeof t === 'string' ? t : t.content; }

// BertConverter.converted's tokenizer.json for a vocab.txt and the
// arguments.
function bert_json(vocab_path, args) {
  const vocab = {};
  fs.readFileSync(vocab_path, 'utf8').split('\n').forEach((t, i) => {
    if (t !== '' || i === 0) vocab[t.replace(/\r$/, '')] = i;
  });
  const lower = args.do_lower_case !== undefined ? args.do_lower_case : true;
  const cls = content(args.cls_token || '[CLS]'), sep = content(args.sep_token || '[SEP]');
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: { type: 'BertNormalizer', clean_text: true,
                  handle_chinese_chars: args.tokenize_chinese_chars !== false,
                  strip_accents: args.strip_accents === undefined ? null : args.strip_accents,
                  lowercase: lower },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
               { SpecialToken: { id: sep, type_id: 0 } }],
      pair: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
             { SpecialToken: { id: sep, type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
             { SpecialToken: { id: sep, type_id: 1 } }],
      special_tokens: { [cls]: { id: cls, ids: [vocab[cls]], tokens: [cls] },
                        [sep]: { id: sep, ids: [vocab[sep]], tokens: [sep] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: content(args.unk_token || '[UNK]'),
             continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

// AddedToken(**dict) or AddedToken(str, special=True), as a binding token.
function added_token(t, special) {
  const o = typeof t === 'string' ? { content: t } : t;
  return new AddedToken(o.content, special, {
    singleWord: !!o.single_word, leftStrip: !!o.lstrip, rightStrip: !!o.rstrip,
    normalized: o.normalized !== undefined ? o.normalized : !special,
  });
}

// PreTrainedTokenizerFast.__init__'s additions, in its order.
function add_folder_tokens(tok, base_added, args, is_bert) {
  const present = new Set(base_added);
  const bert_defaults = { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]',
                          cls_token: '[CLS]', mask_token: '[MASK]' }; // BertTokenizer's
  const specials = ROLES.map(r => args[r] || (is_bert ? bert_defaults[r] : null))
    .filter(Boolean).concat(args.additional_special_tokens || []);
  const special_names = new Set(specials.map(content));
  const to_add = [];
  const decoder = args.added_tokens_decoder || {};
  for (const id of Object.keys(decoder).map(Number).sort((a, b) => a - b)) {
    const t = decoder[String(id)];
    if (present.has(t.content) || to_add.some(u => u.content === t.content)) continue;
    to_add.push({ token: t, special: !!t.special || special_names.has(t.content),
                  content: t.content });
  }
  for (const t of specials) {
    const c = content(t);
    if (present.has(c) || to_add.some(u => u.content === c)) continue;
    to_add.push({ token: t, special: true, content: c });
  }
  for (const a of to_add) tok.addAddedTokens([added_token(a.token, a.special)]);
  return to_add.map(a => a.content);
}

async function encode(tok, a, b) {
  const e = await tok.encode(a, b === undefined ? null : b);
  return { text: a, pair: b === undefined ? null : b, ids: e.getIds(),
           type_ids: e.getTypeIds(), tokens: e.getTokens(), offsets: e.getOffsets() };
}

async function main() {
  const cases = [];
  for (const folder of folders) {
    const args = init_args(folder);
    const base = path.join(data_dir, folder.base);
    const is_bert = base.endsWith('vocab.txt');
    let json = is_bert ? bert_json(base, args) : JSON.parse(fs.readFileSync(base, 'utf8'));
    if (folder.drop_added) json.added_tokens = [];
    if (json.post_processor && 'trim_offsets' in json.post_processor) // libtfenc does not trim
      json.post_processor.trim_offsets = false;
    const tok = Tokenizer.fromString(JSON.stringify(json));
    const added = add_folder_tokens(tok, json.added_tokens.map(t => t.content), args, is_bert);
    const encodings = [];
    for (const t of texts) encodings.push(await encode(tok, t));
    for (const [a, b] of pairs) encodings.push(await encode(tok, a, b));
    const ids_of = {};
    for (const c of added) ids_of[c] = tok.tokenToId ? tok.tokenToId(c) : null;
    cases.push({ name: folder.name, base: folder.base, drop_added: !!folder.drop_added,
                 files: folder.files, added, model_max_length: args.model_max_length || 0,
                 pad_token: content(args.pad_token || (is_bert ? '[PAD]' : '')) || null,
                 encodings });
    console.log(`${folder.name}: added ${added.join(' ')}`);
  }
  fs.mkdirSync(out_dir, { recursive: true });
  const doc = { generator: 'tests/tokenizer_json/gen_folder_config.js (@anush008/tokenizers ' +
                           '0.6.0 = tokenizers 0.22.2, transformers\' rules written from its source)',
                cases };
  fs.writeFileSync(path.join(out_dir, 'cases.json'), JSON.stringify(doc, null, 1) + '\n');
  // The same for the Rust binding's test (the crate parses no JSON), the
  // folders whose base file is copied as it is: "file" lines (folder, base,
  // file name, its JSON on one line), then "case" lines (folder, text, pair
  // or "-", ids, type ids).
  const lines = [];
  for (const c of cases.filter(c => !c.drop_added)) {
    for (const [name, body] of Object.entries(c.files))
      lines.push(['file', c.name, c.base, name, JSON.stringify(body)].join('\t'));
    for (const e of c.encodings)
      lines.push(['case', c.name, e.text, e.pair === null ? '-' : e.pair, e.ids.join(' '),
                  e.type_ids.join(' ')].join('\t'));
  }
  fs.writeFileSync(path.join(out_dir, 'check_rust.txt'), lines.join('\n') + '\n');
}

main().catch(e => { console.error(e); process.exit(1); });
