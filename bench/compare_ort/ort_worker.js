// ONNX Runtime's side of bench/compare_ort: a long-lived worker that
// compare_ort.py drives over its stdin and stdout, one JSON object a line
// each way (the protocol is compare_ort.py's Worker). The session is the one an
// ONNX Runtime user creates: the CPU execution provider, graph optimisation
// "all", a fixed number of intra-op threads, sequential execution.
//
//   node ort_worker.js    (started by compare_ort.py, not by hand)
"use strict";
const fs = require("fs");
const readline = require("readline");
const ort = require("onnxruntime-node");

let session = null;
let feeds = null; // {x: float32 [B, T, D], attention_mask: int64 [B, T]}
let output = null; // Float32Array [B, T, D] of the latest run

function readFloats(path) {
    const buf = fs.readFileSync(path);
    const out = new Float32Array(buf.byteLength / 4); // own, aligned storage
    new Uint8Array(out.buffer).set(buf);
    return out;
}

function procStatusKb(field) {
    const m = fs.readFileSync("/proc/self/status", "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return Number(m[1]);
}

const commands = {
    async load(msg) {
        session = await ort.InferenceSession.create(msg.model, {
            executionProviders: ["cpu"],
            graphOptimizationLevel: "all",
            intraOpNumThreads: msg.threads,
            interOpNumThreads: 1,
            executionMode: "sequential",
        });
        return { runtime: `onnxruntime-node ${require("onnxruntime-node/package.json").version}` };
    },
    input(msg) {
        const [B, T, D] = msg.shape;
        const mask = new BigInt64Array(B * T); // [B, T], 1 = real token
        msg.lengths.forEach((n, b) => mask.fill(1n, b * T, b * T + n));
        feeds = {
            x: new ort.Tensor("float32", readFloats(msg.x), [B, T, D]),
            attention_mask: new ort.Tensor("int64", mask, [B, T]),
        };
        return {};
    },
    async run() {
        const t0 = process.hrtime.bigint();
        const result = await session.run(feeds);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        output = result.y.data;
        return { ms };
    },
    dump(msg) {
        fs.writeFileSync(msg.path, Buffer.from(output.buffer, output.byteOffset, output.byteLength));
        return {};
    },
    reset_peak() {
        try {
            fs.writeFileSync("/proc/self/clear_refs", "5"); // VmHWM := VmRSS
        } catch (e) {
            return { reset: false };
        }
        return { reset: true };
    },
    rss() {
        return { rss_kb: procStatusKb("VmRSS"), peak_kb: procStatusKb("VmHWM") };
    },
};

async function main() {
    const lines = readline.createInterface({ input: process.stdin, terminal: false });
    for await (const line of lines) {
        const msg = JSON.parse(line);
        let reply;
        try {
            reply = { ok: true, ...(await commands[msg.cmd](msg)) };
        } catch (e) {
            reply = { ok: false, error: `${msg.cmd}: ${e.message}` };
        }
        process.stdout.write(JSON.stringify(reply) + "\n");
    }
}

main();
