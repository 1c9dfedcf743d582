// The baseline of bench/serve_load.py: what a user hand-rolls to serve an
// ONNX embedding model, onnxruntime-node behind Node's http module, one
// request at a time (each session.run waits for the one before it); the
// tokenizer and the HTTP front are ort_common.js's.
//
//   node ort_server.js MODEL_DIR PORT_FILE THREADS
"use strict";
const { ort, loadVocab, createSession, serve } = require("./ort_common");

const [dir, portFile, threads] = process.argv.slice(2);

async function main() {
    const session = await createSession(dir, Number(threads));
    let previous = Promise.resolve(); // the run before: one at a time
    async function embed(ids) {
        const T = ids.length;
        const feeds = {
            input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, T]),
            attention_mask: new ort.Tensor("int64", new BigInt64Array(T).fill(1n), [1, T]),
        };
        const run = previous.then(() => session.run(feeds));
        previous = run.catch(() => {});
        return Array.from((await run).embedding.data);
    }
    serve(loadVocab(dir), portFile, embed);
}

main();
