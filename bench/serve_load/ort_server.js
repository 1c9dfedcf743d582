// The baseline of bench/serve_load.py: what a user hand-rolls to serve an
// ONNX embedding model, onnxruntime-node behind Node's http module, one
// request at a time (each session.run waits for the one before it). It
// answers POST /embed {"inputs": TEXT} with [[...]] as tfenc serve's TEI
// route does. The tokenizer is a whitespace split and a vocabulary
// lookup, which is WordPiece for the benchmark's texts (whole words of
// model.py's vocabulary, lower case, no punctuation): [CLS] ids [SEP].
//
//   node ort_server.js MODEL_DIR PORT_FILE THREADS
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const ort = require("onnxruntime-node");

const [dir, portFile, threads] = process.argv.slice(2);
const vocab = new Map(fs.readFileSync(path.join(dir, "vocab.txt"), "utf8").split("\n")
    .filter((t) => t).map((t, i) => [t, i]));
const MAX_LEN = 256; // sentence_bert_config.json's max_seq_length

function tokenize(text) {
    const ids = [vocab.get("[CLS]")];
    for (const w of text.toLowerCase().split(/\s+/).filter((x) => x))
        ids.push(vocab.has(w) ? vocab.get(w) : vocab.get("[UNK]"));
    ids.length = Math.min(ids.length, MAX_LEN - 1);
    ids.push(vocab.get("[SEP]"));
    return ids;
}

async function main() {
    const session = await ort.InferenceSession.create(path.join(dir, "model.onnx"), {
        executionProviders: ["cpu"], graphOptimizationLevel: "all",
        intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: "sequential",
    });
    let previous = Promise.resolve(); // the run before: one at a time
    async function embed(text) {
        const ids = tokenize(text);
        const T = ids.length;
        const feeds = {
            input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, T]),
            attention_mask: new ort.Tensor("int64", new BigInt64Array(T).fill(1n), [1, T]),
        };
        const run = previous.then(() => session.run(feeds));
        previous = run.catch(() => {});
        return Array.from((await run).embedding.data);
    }
    const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => { body += c; });
        req.on("end", async () => {
            try {
                const vec = await embed(JSON.parse(body).inputs);
                res.writeHead(200, { "Content-Type": "application/json" });
                res.end(JSON.stringify([vec]));
            } catch (e) {
                res.writeHead(400, { "Content-Type": "application/json" });
                res.end(JSON.stringify({ error: String(e), error_type: "Validation" }));
            }
        });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, "127.0.0.1", () => {
        fs.writeFileSync(portFile + ".tmp", `${server.address().port}\n`);
        fs.renameSync(portFile + ".tmp", portFile);
    });
    process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

main();
