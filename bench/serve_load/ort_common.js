// What bench/serve_load.py's two onnxruntime-node servers share: the
// tokenizer, the session and the HTTP front. Each answers POST /embed
// {"inputs": TEXT} with [[...]] as tfenc serve's TEI route does. The
// tokenizer is a whitespace split and a vocabulary lookup, which is
// WordPiece for the benchmark's texts (whole words of model.py's
// vocabulary, lower case, no punctuation): [CLS] ids [SEP].
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const ort = require("onnxruntime-node");

const MAX_LEN = 256; // sentence_bert_config.json's max_seq_length

function loadVocab(dir) {
    return new Map(fs.readFileSync(path.join(dir, "vocab.txt"), "utf8").split("\n")
        .filter((t) => t).map((t, i) => [t, i]));
}

// [CLS] ids [SEP], at most MAX_LEN ids.
function tokenize(vocab, text) {
    const ids = [vocab.get("[CLS]")];
    for (const w of text.toLowerCase().split(/\s+/).filter((x) => x))
        ids.push(vocab.has(w) ? vocab.get(w) : vocab.get("[UNK]"));
    ids.length = Math.min(ids.length, MAX_LEN - 1);
    ids.push(vocab.get("[SEP]"));
    return ids;
}

function createSession(dir, threads) {
    return ort.InferenceSession.create(path.join(dir, "model.onnx"), {
        executionProviders: ["cpu"], graphOptimizationLevel: "all",
        intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
    });
}

// Serves POST /embed with embed(ids) -> Promise of a vector; writes the
// port to portFile once listening.
function serve(vocab, portFile, embed) {
    const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => { body += c; });
        req.on("end", async () => {
            try {
                const vec = await embed(tokenize(vocab, JSON.parse(body).inputs));
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

module.exports = { ort, loadVocab, tokenize, createSession, serve };
