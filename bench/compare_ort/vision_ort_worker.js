// ONNX Runtime's side of bench/vision_compare.py: a long-lived worker driven
// one command a line over stdin, one reply a line on stdout ("ok [value]" or
// "error <message>"), the protocol of bench/vision_bench.c:
//
//   load MODEL.onnx THREADS   a session as an ONNX Runtime user creates one: CPU
//                             execution provider, graph optimisation "all",
//                             THREADS intra-op threads, sequential execution
//   input PATH                pixel_values [B, C, H, W] from a float32 .npy
//   run                       one call; replies its milliseconds
//   dump PATH                 the last call's image_embeds as raw float32
//
//   node bench/compare_ort/vision_ort_worker.js    (started by vision_compare.py)
"use strict";
const fs = require("fs");
const readline = require("readline");
const ort = require("onnxruntime-node");

let session = null;
let feeds = null; // {pixel_values: float32 [B, C, H, W]}
let output = null; // Float32Array of the latest run

// A float32 .npy in C order: its shape and values (own, aligned storage).
function readNpy(path) {
    const buf = fs.readFileSync(path);
    const headerLen = buf.readUInt16LE(8);
    const header = buf.toString("latin1", 10, 10 + headerLen);
    if (!header.includes("'descr': '<f4'") || header.includes("'fortran_order': True"))
        throw new Error(`${path}: not a C-order float32 .npy`);
    const dims = header.match(/'shape': \(([^)]*)\)/)[1].split(",");
    const shape = dims.filter((s) => s.trim()).map(Number);
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    new Uint8Array(data.buffer).set(buf.subarray(10 + headerLen, 10 + headerLen + data.byteLength));
    return { shape, data };
}

const commands = {
    async load(model, threads) {
        session = await ort.InferenceSession.create(model, {
            executionProviders: ["cpu"],
            graphOptimizationLevel: "all",
            intraOpNumThreads: Number(threads),
            interOpNumThreads: 1,
            executionMode: "sequential",
        });
        return require("onnxruntime-node/package.json").version;
    },
    input(path) {
        const { shape, data } = readNpy(path);
        feeds = { pixel_values: new ort.Tensor("float32", data, shape) };
        return "";
    },
    async run() {
        const t0 = process.hrtime.bigint();
        const result = await session.run(feeds);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        output = result.image_embeds.data;
        return ms.toFixed(3);
    },
    dump(path) {
        fs.writeFileSync(path, Buffer.from(output.buffer, output.byteOffset, output.byteLength));
        return "";
    },
};

async function main() {
    const lines = readline.createInterface({ input: process.stdin, terminal: false });
    for await (const line of lines) {
        const [cmd, ...args] = line.trim().split(/\s+/);
        try {
            if (!commands[cmd]) throw new Error(`unknown command ${cmd}`);
            const value = await commands[cmd](...args);
            process.stdout.write(value === "" ? "ok\n" : `ok ${value}\n`);
        } catch (e) {
            process.stdout.write(`error ${String(e.message).replace(/\n/g, " ")}\n`);
        }
    }
}

main();
