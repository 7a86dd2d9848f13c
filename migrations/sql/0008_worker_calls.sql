-- 0008_worker_calls: one row per call the host made to an LLM worker (issue 17 §4).
--
-- What an operator needs to judge a worker (which task, which worker and model, when, how
-- long, how it ended, what it cost) and nothing of the text: the prompt and the answer are
-- never stored. `memhost workers` and GET /api/v1/workers roll the last 24 hours up from here,
-- and the daily token budgets are summed from it, so every host sharing the database sees the
-- same spend.
CREATE TABLE worker_calls (
    id            bigserial PRIMARY KEY,
    task          text        NOT NULL,
    worker        text        NOT NULL,
    model         text        NOT NULL DEFAULT '',
    started_at    timestamptz NOT NULL,
    latency_ms    integer     NOT NULL CHECK (latency_ms >= 0),
    -- ok, refused, rate_limited, timeout, bad_answer, over_budget, invalid_input,
    -- unavailable, error: a small fixed set (tasks.Outcome).
    outcome       text        NOT NULL,
    input_tokens  integer     NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens integer     NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    bytes_in      integer     NOT NULL DEFAULT 0 CHECK (bytes_in >= 0),
    bytes_out     integer     NOT NULL DEFAULT 0 CHECK (bytes_out >= 0)
);

CREATE INDEX worker_calls_started ON worker_calls (started_at);
CREATE INDEX worker_calls_task_started ON worker_calls (task, started_at);
