// hf_js_cache.mjs — @huggingface/hub's cache-directory downloads, for
// tests/hub/test_hub.py: the other side of the shared cache.
//
//   node hf_js_cache.mjs download HUB_URL CACHE_DIR REPO_ID REVISION
//     snapshotDownload into CACHE_DIR (huggingface_hub's layout); prints the
//     snapshot folder.
//   node hf_js_cache.mjs find CACHE_DIR REPO_ID COMMIT FILE...
//     downloadFileToCacheDir of each FILE at COMMIT with a hub URL nothing
//     answers (so only the cache can), then scanCacheDir; prints one JSON
//     object: {"files": {FILE: path}, "repos": [...], "warnings": [...]}.
import { downloadFileToCacheDir, scanCacheDir, snapshotDownload } from "@huggingface/hub";

// A port nothing listens on (discard): any request fails at once.
const NOWHERE = "http://127.0.0.1:9";
// The library's console.debug lines would mix with the output.
console.debug = () => {};

const [command, ...args] = process.argv.slice(2);
if (command === "download") {
  const [hubUrl, cacheDir, name, revision] = args;
  const repo = { type: "model", name };
  const folder = await snapshotDownload({ repo, cacheDir, hubUrl, revision });
  console.log(folder);
} else if (command === "find") {
  const [cacheDir, name, commit, ...paths] = args;
  const files = {};
  for (const path of paths) {
    files[path] = await downloadFileToCacheDir({
      repo: { type: "model", name }, path, revision: commit, cacheDir, hubUrl: NOWHERE,
    });
  }
  const scan = await scanCacheDir(cacheDir);
  const repos = scan.repos.map((r) => ({
    name: r.id.name,
    type: r.id.type,
    revisions: r.revisions.map((v) => ({
      commitOid: v.commitOid,
      refs: v.refs,
      files: v.files.map((f) => ({ path: f.path, blob: f.blob.path, size: f.blob.size })),
    })),
  }));
  console.log(JSON.stringify({ files, repos, warnings: scan.warnings.map(String) }));
} else {
  console.error("usage: hf_js_cache.mjs download|find ...");
  process.exit(2);
}
