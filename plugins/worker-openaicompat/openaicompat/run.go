package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memhost/memhost/sdk/openaihttp"
	"github.com/memhost/memhost/sdk/worker"
)

// Run asks the runtime for one non-streamed chat completion: the task's
// instructions as the system message, its input as the user message, its
// schema as response_format (or, on runtimes that refuse it, in the system
// message), output capped at what the budget leaves after the prompt.
// Streaming would buy nothing here: the host wants the whole answer, checked.
func (w *Worker) Run(ctx context.Context, t worker.Task) (worker.Answer, error) {
	if err := ctx.Err(); err != nil {
		return worker.Answer{}, fmt.Errorf("run %s: %w", t.Kind, err)
	}
	if w.cfgErr != nil {
		return worker.Answer{}, w.errConfig()
	}
	if err := t.Validate(w.info); err != nil {
		return worker.Answer{}, fmt.Errorf("%w: %w", worker.ErrInvalidInput, err)
	}
	ctx, cancel := context.WithDeadline(ctx, t.Deadline)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancelTimeout()

	f := formatNone
	if t.Schema != "" {
		f = w.caps.structured()
	}
	for {
		req, maxOut, err := w.request(t, f)
		if err != nil {
			return worker.Answer{}, err
		}
		resp, err := w.send(ctx, req)
		if err == nil {
			return w.answer(t, resp)
		}
		var he *httpError
		switch {
		case ctx.Err() != nil:
			return worker.Answer{}, w.ctxErr(ctx)
		case !w.caps.completionTokens.Load() && (errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) ||
			errors.As(err, &he) && he.Rejects("max_completion_tokens")):
			w.caps.completionTokens.Store(true)
			w.log.Info("the runtime refuses max_tokens; capping output with max_completion_tokens from now on", "max_completion_tokens", maxOut)
		case f != formatNone && errors.As(err, &he) && he.Rejects("response_format", "json_schema", "json_object"):
			next := w.caps.downgrade(f)
			w.log.Info("the runtime refuses a response_format; asking with the next one from now on",
				"refused", f.String(), "next", next.String(), "message", he.Message)
			f = max(next, f+1)
		case errors.Is(err, openai.ErrChatCompletionInvalidModel):
			return worker.Answer{}, fmt.Errorf("%w: %s %q is not a chat model", worker.ErrInvalidInput, EnvModel, w.cfg.Model)
		case errors.As(err, &he):
			return worker.Answer{}, typed(he.CallError, w.cfg.APIKeyEnv)
		default:
			return worker.Answer{}, err
		}
	}
}

// request builds the chat completion request for t asked in format f, with
// the output cap: the budget less an over-estimate of the prompt. A task
// whose prompt alone leaves less than minOutputTokens is refused unsent.
func (w *Worker) request(t worker.Task, f format) (openai.ChatCompletionRequest, int, error) {
	system := t.Instructions
	if t.Schema != "" && f != formatJSONSchema {
		system += "\n\nAnswer with one JSON value, and nothing else, that satisfies this JSON Schema:\n" + t.Schema
	}
	prompt := estimateTokens(system, t.Input)
	if f == formatJSONSchema {
		prompt += estimateTokens(t.Schema)
	}
	maxOut := t.TokenBudget - prompt
	if maxOut < minOutputTokens {
		return openai.ChatCompletionRequest{}, 0, fmt.Errorf(
			"%w: the prompt comes to about %d tokens, which leaves %d of the token budget of %d for the answer; at least %d are needed",
			worker.ErrOverBudget, prompt, max(maxOut, 0), t.TokenBudget, minOutputTokens)
	}
	req := openai.ChatCompletionRequest{
		Model: w.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: t.Input},
		},
		ResponseFormat: responseFormat(f, string(t.Kind), t.Schema),
	}
	if w.caps.completionTokens.Load() {
		req.MaxCompletionTokens = maxOut
	} else {
		// max_tokens is the field every local runtime reads.
		req.MaxTokens = maxOut
	}
	return req, maxOut, nil
}

// httpError is a response the runtime failed that is not worth retrying as
// it is; Run decides whether another shape of request may succeed.
type httpError struct{ openaihttp.CallError }

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

// send makes the request, retrying a 429 or a 5xx with backoff (or after the
// runtime's Retry-After) while attempts and the deadline allow.
func (w *Worker) send(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	for attempt := 1; ; attempt++ {
		resp, err := w.client.CreateChatCompletion(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, w.ctxErr(ctx)
		}
		c, ok := openaihttp.Classify(err, w.cfg.APIKey)
		if !ok {
			if errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) || errors.Is(err, openai.ErrChatCompletionInvalidModel) {
				return resp, err
			}
			// A 2xx whose body did not decode as a chat completion.
			return resp, fmt.Errorf("%w: the runtime's response is not a chat completion: %s", worker.ErrBadAnswer, openaihttp.Bounded(w.cfg.APIKey.Redact(err.Error())))
		}
		if c.Status == 0 {
			return resp, typed(c, w.cfg.APIKeyEnv)
		}
		if !c.Retryable() {
			return resp, &httpError{c}
		}
		err = w.retry.Pause(ctx, attempt, resp.Header(), typed(c, w.cfg.APIKeyEnv), func(wait time.Duration) {
			w.log.Warn("retrying the chat completion", "status", c.Status, "attempt", attempt, "wait", wait, "message", c.Message)
		})
		if ctx.Err() != nil {
			return resp, w.ctxErr(ctx)
		}
		if err != nil {
			return resp, err
		}
	}
}

// answer turns the runtime's response into the task's answer.
func (w *Worker) answer(t worker.Task, resp openai.ChatCompletionResponse) (worker.Answer, error) {
	if len(resp.Choices) == 0 {
		return worker.Answer{}, fmt.Errorf("%w: the response has no choices", worker.ErrBadAnswer)
	}
	choice := resp.Choices[0]
	switch {
	case choice.FinishReason == openai.FinishReasonLength:
		// The output hit the cap the budget left (or the runtime's own
		// context). The same task with the same budget is cut the same
		// way, which is ErrOverBudget's contract; ErrBadAnswer would blame
		// the model for what the budget did.
		return worker.Answer{}, fmt.Errorf("%w: the answer was cut off at the output cap left by the token budget of %d; a larger budget is needed", worker.ErrOverBudget, t.TokenBudget)
	case choice.FinishReason == openai.FinishReasonContentFilter:
		return worker.Answer{}, fmt.Errorf("%w: the runtime's content filter stopped the answer", worker.ErrRefused)
	case choice.Message.Refusal != "":
		return worker.Answer{}, fmt.Errorf("%w: %s", worker.ErrRefused, openaihttp.Bounded(w.cfg.APIKey.Redact(choice.Message.Refusal)))
	}
	model := resp.Model
	if model == "" {
		model = w.cfg.Model
	}
	a := worker.Answer{Text: strings.TrimSpace(choice.Message.Content), Model: model}
	if u := resp.Usage; u.PromptTokens != 0 || u.CompletionTokens != 0 {
		a.Usage = &worker.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	}
	if t.Schema == "" {
		if a.Text == "" {
			return worker.Answer{}, fmt.Errorf("%w: the answer is empty", worker.ErrBadAnswer)
		}
		return t.CheckAnswer(a)
	}
	// The first JSON value in the answer that satisfies the schema is the
	// answer. CheckAnswer is the host's own check, so a value it passes
	// here passes there; when none passes, the first one's failure says
	// why, as this worker's ErrBadAnswer.
	candidates := jsonCandidates(a.Text)
	if len(candidates) == 0 {
		return worker.Answer{}, fmt.Errorf("%w: no JSON value in the answer", worker.ErrBadAnswer)
	}
	var first error
	for _, c := range candidates {
		a.Text = c
		checked, err := t.CheckAnswer(a)
		if err == nil {
			return checked, nil
		}
		if first == nil {
			first = err
		}
	}
	return worker.Answer{}, first
}

// ctxErr is the error for a call whose context ended: ErrTimeout
// (context.DeadlineExceeded) or context.Canceled.
func (w *Worker) ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer from the runtime within the deadline (at most %s a call): %w", w.cfg.Timeout, ctx.Err())
	}
	return fmt.Errorf("run cancelled: %w", ctx.Err())
}
