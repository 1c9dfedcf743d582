// gen_clip_fast.mjs — CLIPTokenizerFast's ids for the CLIP folder of
// gen_text_tokenizers.py, by Hugging Face's @huggingface/tokenizers (the
// tokenizers.js of transformers.js) over the tokenizer.json transformers'
// CLIPConverter (convert_slow_tokenizer.py) writes from vocab.json and
// merges.txt, as the Hub's openai/clip-vit-base-patch32 tokenizer.json has
// it. Its texts are those where CLIPTokenizer without ftfy, the Python
// reference, differs from the fast tokenizer (CJK characters, control
// characters), and the others again; not a word-final capital sigma, which
// JavaScript's toLowerCase makes "ς" where tokenizers' Lowercase (Rust's
// char::to_lowercase, a character at a time) makes "σ". Adds "clip_fast" to
// text_tokenizers.json:
//
//   node tests/data/gen_clip_fast.mjs MODULE tests/data/tokenizer_folders
//
// MODULE is the package's dist/tokenizers.mjs (installed outside the
// repository: npm install --prefix /tmp/tokjs @huggingface/tokenizers@0.2.0).
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const [module_path, out] = process.argv.slice(2);
const { Tokenizer } = await import(pathToFileURL(module_path).href);
const folder = path.join(out, 'clip');
const vocab = JSON.parse(fs.readFileSync(path.join(folder, 'vocab.json'), 'utf8'));
// CLIPTokenizer: merges.txt stripped, split at "\n", lines 1 .. 48894
const merges = fs.readFileSync(path.join(folder, 'merges.txt'), 'utf8').trim().split('\n')
  .slice(1, 49152 - 256 - 2 + 1);
const special = (content) => ({ id: vocab[content], content, single_word: false, lstrip: false,
                                rstrip: false, normalized: true, special: true });
const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true,
                    use_regex: true };
const json = {
  version: '1.0', truncation: null, padding: null,
  added_tokens: [special('<|startoftext|>'), special('<|endoftext|>')],
  normalizer: { type: 'Sequence', normalizers: [
    { type: 'NFC' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
    { type: 'Lowercase' }] },
  pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split',
      pattern: { Regex: "'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+" },
      behavior: 'Removed', invert: true },
    byteLevel] },
  post_processor: { type: 'RobertaProcessing', sep: ['<|endoftext|>', vocab['<|endoftext|>']],
                    cls: ['<|startoftext|>', vocab['<|startoftext|>']], trim_offsets: false,
                    add_prefix_space: false },
  decoder: { ...byteLevel, add_prefix_space: true },
  model: { type: 'BPE', dropout: null, unk_token: '<|endoftext|>', continuing_subword_prefix: '',
           end_of_word_suffix: '</w>', fuse_unk: false, byte_fallback: false, vocab, merges },
};
const tokenizer = new Tokenizer(json, {});
const expected_path = path.join(out, 'text_tokenizers.json');
const expected = JSON.parse(fs.readFileSync(expected_path, 'utf8'));
const texts = [
  '中文字符 and 日本語のテキスト',
  '한국어 텍스트',
  'control\u0001chars\u007f here\u0008',
  'zero\u200bwidth and \ufeffbom',
  'Ⅻ roman ½ half ²',
  'İstanbul',
  ...expected.clip.cases.map((c) => c.text),
];
expected.clip_fast = {
  max_length: expected.clip.max_length, pad_id: expected.clip.pad_id,
  cases: texts.map((text) => ({ text, ids: tokenizer.encode(text).ids })),
};
fs.writeFileSync(expected_path, JSON.stringify(expected, null, 1) + '\n');
