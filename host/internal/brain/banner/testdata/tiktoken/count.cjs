// Counts every text of corpus.json with OpenAI's tiktoken (the npm package tiktoken, WASM
// bindings of the Rust original; cl100k_base) and writes the counts back. Usage, from the
// banner package directory:
//   npm install --prefix /tmp/tiktoken tiktoken@1.0.22
//   NODE_PATH=/tmp/tiktoken/node_modules node testdata/tiktoken/count.cjs
const fs = require("fs");
const path = require("path");
const { get_encoding } = require("tiktoken");

const file = path.join(__dirname, "corpus.json");
const corpus = JSON.parse(fs.readFileSync(file, "utf8"));
const enc = get_encoding("cl100k_base");
for (const entry of corpus) {
  entry.tokens = enc.encode(entry.text).length;
}
enc.free();
fs.writeFileSync(file, JSON.stringify(corpus, null, 1));
console.log(`counted ${corpus.length} texts`);
