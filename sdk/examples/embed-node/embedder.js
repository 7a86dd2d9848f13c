'use strict';
// A deterministic hashed bag-of-words embedder: each lower-cased word (a run
// of letters or digits) adds 1 to one of DIMENSIONS buckets chosen by its
// 32-bit FNV-1a hash, and the vector is L2-normalised. It shows the contract
// of memhost.v1.Embedder, not a useful model.

const DIMENSIONS = 64;

const info = Object.freeze({
  name: 'hash-node-v1-64',
  version: '0.1.0',
  description: 'example word-hashing embedder written in JavaScript',
  dimensions: DIMENSIONS,
  max_batch: 64,
  max_input_bytes: 16 * 1024,
  suggested_fold_threshold: 0.9,
});

function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// embed returns the vector of one text. A text without words (empty, emoji
// only) gets the zero vector, which the protocol allows.
function embed(text) {
  const v = new Array(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    v[fnv1a(Buffer.from(word, 'utf8')) % DIMENSIONS] += 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

module.exports = { info, embed };
