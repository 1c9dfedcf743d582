// tokenize_js.mjs — the JS reference beside tfenc-bench --tokenize: MB/s of
// one text through Hugging Face's @huggingface/tokenizers (transformers.js's
// tokenizer) on Node's one thread, timed as tokenize_bench.c times ours:
// one warm-up encode, then at least 3 timed encodes and at least MIN_TIME
// seconds (at most 200), the median.
//
//   node bench/tokenize_js.mjs MODULE TOKENIZER_JSON TEXT_FILE NAME TEXT_NAME [MIN_TIME]
//
// MODULE is the package's dist/tokenizers.mjs (installed outside the
// repository, e.g. npm install --prefix /tmp/tokjs @huggingface/tokenizers).
// Prints "tokenize-js NAME TEXT_NAME MB/s BYTES IDS".
import fs from 'fs';
import { pathToFileURL } from 'url';

const [module_path, json_path, text_path, name, text_name, min_time_arg] = process.argv.slice(2);
const { Tokenizer } = await import(pathToFileURL(module_path).href);
const tokenizer = new Tokenizer(JSON.parse(fs.readFileSync(json_path, 'utf8')), {});
const bytes = fs.readFileSync(text_path);
const text = bytes.toString('utf8');
const min_time = Number(min_time_arg ?? 1);

let ids = tokenizer.encode(text).ids.length; // the warm-up
const runs = [];
const start = performance.now();
while (runs.length < 200 && (runs.length < 3 || (performance.now() - start) / 1e3 < min_time)) {
  const t0 = performance.now();
  ids = tokenizer.encode(text).ids.length;
  runs.push((performance.now() - t0) / 1e3);
}
runs.sort((a, b) => a - b);
const median = runs[Math.floor(runs.length / 2)];
console.log(`tokenize-js ${name} ${text_name} ${(bytes.length / 1e6 / median).toFixed(2)} MB/s ` +
            `${bytes.length} bytes ${ids} ids`);
