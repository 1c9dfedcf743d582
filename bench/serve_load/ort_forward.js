// ort_forward.js — session.run of the serve model (model.py's model.onnx) at
// [B, T] (T 16 unless given), THREADS intra-op threads (1 unless given), as
// ort_common.js creates its sessions: median
// and best ms of REPS runs after one warm-up, and tokens/s. The forward that
// bench/serve_cpu.py's servers run, timed alone (beside tfenc-bench's).
//   NODE_PATH=bench/compare_ort/node_modules node bench/serve_load/ort_forward.js MODEL_DIR B REPS
//       [T] [THREADS]
"use strict";
const { ort, createSession } = require("./ort_common");

(async () => {
    const [dir, B, reps] = [process.argv[2], +process.argv[3], +process.argv[4]];
    const T = +(process.argv[5] || 16), threads = +(process.argv[6] || 1);
    const session = await createSession(dir, threads);
    const ids = new BigInt64Array(B * T), mask = new BigInt64Array(B * T).fill(1n);
    for (let i = 0; i < B * T; i++)
        ids[i] = BigInt(100 + ((i * 7919) % 5000));
    const feeds = { input_ids: new ort.Tensor("int64", ids, [B, T]),
                    attention_mask: new ort.Tensor("int64", mask, [B, T]) };
    await session.run(feeds);
    const ms = [];
    for (let r = 0; r < reps; r++) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const median = ms[reps >> 1];
    console.log(`ORT [${B}, ${T}]: median ${median.toFixed(1)} ms, best ${ms[0].toFixed(1)} ms, ` +
                `${((B * T) / median * 1000).toFixed(0)} tokens/s`);
})();
