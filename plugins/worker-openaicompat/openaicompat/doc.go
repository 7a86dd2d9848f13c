// Package openaicompat is the memhost worker that answers tasks through any
// OpenAI-compatible POST {base}/chat/completions: ollama, LM Studio, vLLM,
// llama.cpp's server or a cloud API. It uses no vendor-specific path, header
// or field; what a runtime lacks it learns from the runtime's own 400s.
//
// # Configuration
//
// The plugin reads these environment variables and no others (the host sets
// them from the worker's [workers.NAME] section):
//
//   - MEMHOST_WORKER_BASE_URL (required): the API root, e.g.
//     http://127.0.0.1:11434/v1. http or https, with no credentials in it.
//   - MEMHOST_WORKER_MODEL (required): the model to ask.
//   - MEMHOST_WORKER_NAME: Describe's name (default "openaicompat").
//   - MEMHOST_WORKER_API_KEY_ENV: the NAME of the variable that holds the
//     API key, sent as "Authorization: Bearer"; unset for runtimes without
//     keys. The key is never logged and never in an error: errors name the
//     variable, and text the runtime sends back is scrubbed of the key.
//   - MEMHOST_WORKER_TIMEOUT: a Go duration bounding one Run, retries
//     included (default 120s); a task's sooner deadline wins.
//   - MEMHOST_WORKER_MAX_INPUT_BYTES: the largest instructions plus input
//     accepted (default 256 KiB).
//   - MEMHOST_WORKER_LOCALITY: local or remote; by default local when the
//     base URL's host is loopback, remote otherwise.
//
// A missing or bad variable does not stop the plugin: Describe and Health
// report it by name and Run refuses with worker.ErrInvalidInput.
//
// # A task
//
// Run sends one non-streamed request (the host wants the whole answer,
// checked, so streaming would buy nothing): the instructions as the system
// message, the input as the user message, and, for a task with a schema,
// response_format {type: json_schema, json_schema: {name: the task kind,
// schema, strict: true}}. A runtime that answers 400 naming response_format
// or json_schema is asked again with {type: json_object}, then with no
// response_format, the schema then travelling in the system message; the
// process remembers the weakest form needed. The answer is read tolerantly:
// the whole content as JSON, else a ```json fence, else a balanced {...} or
// [...] in the prose; the first candidate that Task.CheckAnswer accepts is
// the answer, and none is worker.ErrBadAnswer.
//
// The output is capped (max_tokens, or max_completion_tokens once the
// runtime asks for it) at the token budget less an over-estimate of the
// prompt (three bytes a token plus a per-message allowance); a task whose
// prompt leaves fewer than 16 tokens is refused with worker.ErrOverBudget
// before any request. Usage is the runtime's own count.
//
// # Errors
//
//   - 401, 403: worker.ErrRefused, naming the key's variable and quoting
//     nothing of the runtime's message (some echo part of the key).
//   - 429: retried after Retry-After (seconds or a date) or, without it,
//     exponential backoff with jitter; worker.ErrRateLimited once the
//     attempts are spent or the wait would pass the deadline.
//   - 5xx: retried the same way, then worker.ErrUnavailable.
//   - 400/422 naming the context length: worker.ErrOverBudget; any other
//     400: worker.ErrInvalidInput; 404: worker.ErrUnavailable (no such model
//     or endpoint); no connection: worker.ErrUnavailable.
//   - The deadline or MEMHOST_WORKER_TIMEOUT passing: worker.ErrTimeout.
//   - A 2xx body that is not a chat completion, no choices, or an answer
//     without JSON satisfying the schema: worker.ErrBadAnswer.
//   - finish_reason "length": worker.ErrOverBudget. The output hit the cap
//     the budget left, so the same task with the same budget is cut the same
//     way; it is the budget, not the model, that failed.
//   - finish_reason "content_filter" or a refusal in the message:
//     worker.ErrRefused.
//
// Health is GET {base}/models under a 5-second bound, shorter when the
// host's deadline is nearer (openaihttp.HealthBudget: a runtime that does not
// answer is ErrUnavailable before the host stops waiting, not a timeout that
// would restart this process); a 404 counts as reachable, since not every
// runtime serves the list.
package openaicompat
