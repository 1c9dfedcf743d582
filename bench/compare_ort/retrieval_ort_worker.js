// ONNX Runtime's side of bench/sparse_bench.py --ort and bench/colbert_encode.py --ort:
// a long-lived worker driven over stdin and stdout, one JSON object a line each way.
// The session is the one an ONNX Runtime user creates: the CPU execution provider,
// graph optimisation "all", sequential execution.
//
//   load  {model, threads}            -> {runtime, rss_kb}
//   input {path}                      a JSON file: a list of batches, each a list of
//                                     token-id lists (padded here with 0 to the batch's
//                                     longest, attention_mask 1 on the real tokens)
//   run   {dump: path | null}         every batch once -> {ms}; dump writes each batch's
//                                     output (float32, as the graph gives it) one after another
//   reset_peak, rss                   Linux's VmHWM reset to VmRSS; {rss_kb, peak_kb}
"use strict";
const fs = require("fs");
const readline = require("readline");
const ort = require("onnxruntime-node");

let session = null;
let batches = null; // [{input_ids: int64 [B, T], attention_mask: int64 [B, T]}]

function procStatusKb(field) {
    const status = fs.readFileSync("/proc/self/status", "utf8");
    const m = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return Number(m[1]);
}

function feeds(ids) {
    const B = ids.length, T = Math.max(...ids.map((r) => r.length));
    const inputIds = new BigInt64Array(B * T); // [B, T], 0 = [PAD]
    const mask = new BigInt64Array(B * T); // [B, T], 1 = real token
    ids.forEach((row, b) => {
        row.forEach((id, t) => (inputIds[b * T + t] = BigInt(id)));
        mask.fill(1n, b * T, b * T + row.length);
    });
    return {
        input_ids: new ort.Tensor("int64", inputIds, [B, T]),
        attention_mask: new ort.Tensor("int64", mask, [B, T]),
    };
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
        return {
            runtime: `onnxruntime-node ${require("onnxruntime-node/package.json").version}`,
            rss_kb: procStatusKb("VmRSS"),
        };
    },
    input(msg) {
        batches = JSON.parse(fs.readFileSync(msg.path, "utf8")).map(feeds);
        return {};
    },
    async run(msg) {
        const fd = msg.dump ? fs.openSync(msg.dump, "w") : null;
        let ms = 0;
        for (const f of batches) {
            const t0 = process.hrtime.bigint();
            const result = await session.run(f);
            ms += Number(process.hrtime.bigint() - t0) / 1e6;
            if (fd !== null) {
                const y = result[session.outputNames[0]].data;
                fs.writeSync(fd, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
            }
        }
        if (fd !== null)
            fs.closeSync(fd);
        return { ms };
    },
    reset_peak() {
        fs.writeFileSync("/proc/self/clear_refs", "5"); // VmHWM := VmRSS
        return {};
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
