// Package transfer owns memhost's JSONL export and import format: one header line, then one
// line per memory carrying every field, its vector and its full history. Export then import
// is lossless, and import is idempotent (memories already present by id are skipped) and bulk:
// records go to the store in COPY batches.
package transfer
