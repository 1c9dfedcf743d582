// clients.mjs INPUTS.json — drives tfenc serve with the npm clients users
// point at TEI and OpenAI (package.json; installed by test_clients.py with
// npm ci), each call as its documentation writes it, and prints one JSON
// object on stdout: {"NAME": {"result": ...} or {"error": "..."}, ...}, the
// results as the clients return them (base64 strings decoded to float32
// numbers), for test_clients.py to compare with the CLI's.
//
// INPUTS.json: {"embed_url", "classifier_url", "reranker_url": the three
// servers' base URLs; "texts": [text], "token_ids": [[id]] (the texts'
// ids, no special tokens), "dimensions": n, "source": text,
// "sentences": [text], "classify_texts": [text]}.
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { HfInference, InferenceClient } from "@huggingface/inference";

const inputs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const calls = {};

// Runs one client call; its result or its error goes under name.
async function call(name, run) {
    try {
        calls[name] = { result: await run() };
    } catch (err) {
        calls[name] = { error: `${err.name}: ${err.message}` };
    }
}

// The float32 numbers of OpenAI's base64 embedding (little-endian floats).
function float32s(base64) {
    const bytes = Buffer.from(base64, "base64");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(4 * i, true));
}

// data[].embedding of an OpenAI response, in index order, as numbers.
function vectors(response) {
    const data = [...response.data].sort((a, b) => a.index - b.index);
    return data.map((d) =>
        typeof d.embedding === "string" ? float32s(d.embedding) : Array.from(d.embedding)
    );
}

// OpenAI's client on /v1 (its default encoding_format asks base64 and decodes it).
const openai = new OpenAI({ baseURL: `${inputs.embed_url}/v1`, apiKey: "unused" });
const model = "tfenc";
const { texts, token_ids: ids } = inputs;
await call("openai.embeddings string", async () =>
    vectors(await openai.embeddings.create({ model, input: texts[0], user: "test_clients" }))
);
await call("openai.embeddings array", async () =>
    vectors(await openai.embeddings.create({ model, input: texts }))
);
await call("openai.embeddings token ids", async () =>
    vectors(await openai.embeddings.create({ model, input: ids[0] }))
);
await call("openai.embeddings token id lists", async () =>
    vectors(await openai.embeddings.create({ model, input: ids }))
);
await call("openai.embeddings base64", async () =>
    vectors(await openai.embeddings.create({ model, input: texts, encoding_format: "base64" }))
);
await call("openai.embeddings float", async () =>
    vectors(await openai.embeddings.create({ model, input: texts, encoding_format: "float" }))
);
await call("openai.embeddings dimensions", async () =>
    vectors(
        await openai.embeddings.create({ model, input: texts, dimensions: inputs.dimensions })
    )
);
await call("openai.models.list", async () => {
    const models = [];
    for await (const m of openai.models.list()) models.push(m);
    return models;
});

// @huggingface/inference with the server's URL: POST / (TEI's route for the
// model's kind) or the route itself.
const hf = new InferenceClient();
await call("hf.featureExtraction root", () =>
    hf.featureExtraction({ endpointUrl: inputs.embed_url, inputs: texts[0] })
);
await call("hf.featureExtraction endpoint array", () =>
    hf.endpoint(inputs.embed_url).featureExtraction({ inputs: texts })
);
await call("hf.featureExtraction /embed normalize false", () =>
    hf.featureExtraction({
        endpointUrl: `${inputs.embed_url}/embed`,
        inputs: texts,
        normalize: false,
    })
);
await call("HfInference.featureExtraction root", () =>
    new HfInference().featureExtraction({ endpointUrl: inputs.embed_url, inputs: texts })
);
await call("hf.sentenceSimilarity /similarity", () =>
    hf.sentenceSimilarity({
        endpointUrl: `${inputs.embed_url}/similarity`,
        inputs: { source_sentence: inputs.source, sentences: inputs.sentences },
    })
);
await call("hf.textClassification root", () =>
    hf.textClassification({ endpointUrl: inputs.classifier_url, inputs: inputs.classify_texts[0] })
);
await call("hf.textClassification /predict", () =>
    hf.textClassification({
        endpointUrl: `${inputs.classifier_url}/predict`,
        inputs: inputs.classify_texts[0],
    })
);
// TEI answers a single text's predictions as one list, where the client reads
// the first of a list of lists; TEI's batch form is answered as the latter.
await call("hf.textClassification batch form", () =>
    hf.textClassification({
        endpointUrl: inputs.classifier_url,
        inputs: inputs.classify_texts.map((text) => [text]),
    })
);

process.stdout.write(JSON.stringify(calls));
