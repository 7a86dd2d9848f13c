// Package tasks runs the host's LLM tasks (merge, conflicts, session_summary, extract,
// plan_drift, gatekeeper) through the configured workers. It is not the worker plugin handle
// (host/internal/plugins/workers, which holds one plugin process to the protocol): it decides
// which workers run, in which order a task tries them, and what a task may spend.
//
// One plugin process runs per [workers.NAME] table, launched from memhost-worker-<plugin> in
// plugins.dirs with that worker's settings as MEMHOST_WORKER_* variables, the variable its
// api_key_env names, those its env list names, and for an agent CLI that CLI's own login
// variables, and nothing else of the host's environment (the database URL never reaches a
// worker). With no worker configured
// the agent CLIs on the host's PATH are used, claude, then gemini, then codex; with none of
// them either, LLM tasks are skipped and Status says so.
//
// Runner.Run tries a task kind's chain in order and moves to the next worker when one fails,
// is not healthy, is backed off (a circuit breaker that opens after consecutive failures and
// lets one probe through once its backoff passes) or has spent its daily tokens. A task kind
// has a token and wall-time budget per run and per 24 hours (config [tasks]); a kind over its
// daily budget waits, and Status shows it. Every call is recorded in worker_calls (task,
// worker, model, start, latency, outcome, tokens, bytes; never the prompt or the answer) and
// counted in the memhost_worker_* metrics. A failed call's reason is what the worker said (a
// refused connection, an HTTP status, a CLI's last words), with the plugin's variables named
// as the operator's keys; Status keeps each worker's last failure since it last answered.
package tasks
