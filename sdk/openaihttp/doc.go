// Package openaihttp holds what every plugin that calls an OpenAI-compatible
// HTTP API (chat completions, embeddings) needs the same way: its name,
// model, API root and key read from the plugin's environment (Endpoint; the
// key only from the variable the configuration names, and never printable)
// and its timeout (DurationFromEnv), the client built
// on go-openai, failures read out of go-openai's error types with the key
// scrubbed and the runtime's words bounded, and the retry policy that
// honours Retry-After. Each plugin keeps what differs: its own environment
// variable names, its request loop and its mapping of failures to its
// kind's errors.
package openaihttp
