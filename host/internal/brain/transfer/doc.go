// Package transfer owns memhost's JSONL export and import format: one header line, then one
// line per memory carrying every field, its vector and its full history.
//
// Export then import is lossless apart from redaction. An export to a file is written beside
// it and renamed into place when complete, so a failed export never leaves a partial backup.
// An import is all or nothing: the whole file is validated first (the write path's limits,
// each vector against its embedder's width), then redacted and loaded in one transaction. It
// is idempotent (memories already present by id are skipped) and bulk: records go to the store
// in COPY batches.
package transfer
