// The fair peer of tfenc serve in bench/serve_load.py: onnxruntime-node
// with the batching queue a careful user builds. Requests wait in arrival
// order; whenever no run is in flight, one batch is formed from what is
// waiting, the oldest first, up to MAX_BATCH_TOKENS tokens as the run
// computes them (rows x its longest input: the batch is padded to its
// longest, [PAD] ids under a 0 attention mask, as ONNX models are run),
// the first request always taken; one session.run, and each request gets
// its row. The batch is formed in a setImmediate, after Node has read
// every request that arrived with the last one (or during the last run),
// so that a burst is one batch rather than a lone first request and the
// rest. The tokenizer and the HTTP front are ort_common.js's.
//
//   node ort_batching_server.js MODEL_DIR PORT_FILE THREADS MAX_BATCH_TOKENS
"use strict";
const fs = require("fs");
const { ort, loadVocab, createSession, serve } = require("./ort_common");

const [dir, portFile, threads, maxBatchTokens] = process.argv.slice(2);
const BUDGET = Number(maxBatchTokens);

// Requests from the head of queue while rows x longest stays within BUDGET.
function take(queue) {
    const batch = [queue.shift()];
    let longest = batch[0].ids.length;
    while (queue.length) {
        const wider = Math.max(longest, queue[0].ids.length);
        if ((batch.length + 1) * wider > BUDGET)
            break;
        batch.push(queue.shift());
        longest = wider;
    }
    return { batch, longest };
}

// feeds of batch padded to T = longest: input_ids and attention_mask [B, T].
function padded(batch, T) {
    const B = batch.length;
    const ids = new BigInt64Array(B * T); // [B, T], 0 = [PAD]
    const mask = new BigInt64Array(B * T); // [B, T]
    batch.forEach((r, b) => {
        r.ids.forEach((id, t) => { ids[b * T + t] = BigInt(id); mask[b * T + t] = 1n; });
    });
    return {
        input_ids: new ort.Tensor("int64", ids, [B, T]),
        attention_mask: new ort.Tensor("int64", mask, [B, T]),
    };
}

async function main() {
    const session = await createSession(dir, Number(threads));
    const queue = []; // {ids, resolve, reject}, oldest first
    const counts = { runs: 0, rows: 0 }; // written to $ORT_BATCH_COUNTS on SIGTERM (serve_cpu.py)
    if (process.env.ORT_BATCH_COUNTS)
        process.on("SIGTERM", () => {
            fs.writeFileSync(process.env.ORT_BATCH_COUNTS, `${counts.runs} ${counts.rows}\n`);
            process.exit(0);
        });
    let running = false, scheduled = false;

    async function runBatch() {
        scheduled = false;
        if (running || !queue.length)
            return;
        running = true;
        const { batch, longest } = take(queue);
        counts.runs++, counts.rows += batch.length;
        try {
            const out = (await session.run(padded(batch, longest))).embedding; // [B, W]
            const W = out.dims[1];
            batch.forEach((r, b) => r.resolve(Array.from(out.data.subarray(b * W, (b + 1) * W))));
        } catch (e) {
            batch.forEach((r) => r.reject(e));
        }
        running = false;
        schedule();
    }
    function schedule() {
        if (!scheduled && queue.length) {
            scheduled = true;
            setImmediate(runBatch);
        }
    }
    function embed(ids) {
        return new Promise((resolve, reject) => {
            queue.push({ ids, resolve, reject });
            schedule();
        });
    }
    serve(loadVocab(dir), portFile, embed);
}

main();
