// Package openaicompat is memhost's dense embedder: it embeds texts through
// any OpenAI-compatible POST {base}/embeddings endpoint (ollama, LM Studio,
// vLLM, llama.cpp's server, TEI, a cloud API) with go-openai.
//
// The host starts one plugin process per configured [embedders.NAME] table
// and tells it its settings in its environment; the plugin reads only these
// variables:
//
//   - MEMHOST_EMBEDDER_NAME: the configured embedder's name, for messages
//     (default "openaicompat").
//   - MEMHOST_EMBEDDER_BASE_URL (required): the API root, e.g.
//     http://127.0.0.1:11434/v1. No credentials in it.
//   - MEMHOST_EMBEDDER_MODEL (required): the model to ask.
//   - MEMHOST_EMBEDDER_API_KEY_ENV: the NAME of the variable holding the API
//     key, which the host passes through. The key is sent as a bearer token
//     and never logged, printed or quoted in an error.
//   - MEMHOST_EMBEDDER_DIMENSIONS: the width the model answers. Without it
//     the plugin asks the runtime once at start, so it cannot start while
//     the runtime is down; with it, it starts and reports the runtime
//     unavailable until it answers.
//   - MEMHOST_EMBEDDER_MAX_INPUT_TOKENS: the model's context (default 512).
//     The plugin declares MaxInputBytes = 2 bytes a token (less the
//     prefix), to which the host cuts every text, and checks once that the
//     model really reads that much (see below).
//   - MEMHOST_EMBEDDER_MAX_BATCH: texts per request (default 64).
//   - MEMHOST_EMBEDDER_QUERY_PREFIX, MEMHOST_EMBEDDER_DOCUMENT_PREFIX: what
//     asymmetric models want before a search query and a stored text. When
//     neither is set, known families get theirs: nomic-embed-*
//     "search_query: "/"search_document: ", e5 "query: "/"passage: ".
//   - MEMHOST_EMBEDDER_TIMEOUT: bounds one Embed, retries included
//     (default 30s).
//   - MEMHOST_EMBEDDER_FOLD_THRESHOLD: the suggested fold threshold
//     (default 0.92).
//
// A missing or bad variable makes every method report it by name; the
// plugin never exits over it.
//
// Traps it guards against: it asks for float vectors (encoding_format
// float; some SDK and runtime pairs cut base64 ones to 256 values) and
// checks every vector's width against the configured or learnt one; it
// refuses models wider than pgvector's HNSW limit of 2,000 dimensions; it
// measures, with two texts at the declared limit that differ only at the
// end, whether the runtime refuses or silently cuts input shorter than
// that, and if so refuses every Embed naming MEMHOST_EMBEDDER_MAX_INPUT_TOKENS.
//
// Errors: an unreachable runtime, a 5xx, 429 after retries (which honour
// Retry-After), a rejected key and a missing model are ErrUnavailable (the
// host degrades search to lexical and retries writes later, and does not
// restart the plugin for it); a request the runtime refuses as malformed
// or too long is ErrInvalidInput.
//
// Health sends nothing while a request is under way (a runtime that answers
// one batch at a time would queue the probe behind it; the request itself
// says whether the runtime answers), as long as the runtime's last word was
// an answer: after a request ended at MEMHOST_EMBEDDER_TIMEOUT or could not
// reach the runtime, or a probe went unanswered, Health asks it itself. It
// gives its verdict ("did not answer the health probe within ...",
// ErrUnavailable) before the host's deadline (openaihttp.HealthBudget), so a
// wedged runtime reads unhealthy rather than as this process being wedged.
// MEMHOST_EMBEDDER_TIMEOUT bounds each Embed, retries included: memhost
// sizes its re-embed batches to stay well within it.
//
// Info.Name, the vector space, is the model's name in the store's alphabet
// and the width (nomic-embed-text-768): another model or width is another
// space, whose vectors are never compared with this one's.
package openaicompat
