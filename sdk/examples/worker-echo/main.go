// Command worker-echo is the smallest complete memhost worker plugin: it
// answers every task with the first sentence of its input, as text or as
// {"summary": "..."} when the task asks for JSON. It shows the shape of a
// worker (a Worker implementation plus a main of a few lines) and is what
// the SDK's conformance kit runs against as a real binary; it calls no
// model and is not meant for real use. Build it and point the host's plugin
// directory at it:
//
//	go build -o memhost-worker-echo ./examples/worker-echo
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/worker"
)

func main() {
	if err := worker.Serve(echo{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// echo answers without a model.
type echo struct{}

var _ worker.Worker = echo{}

var info = worker.Info{
	Name:        "echo",
	Version:     "0.1.0",
	Description: "example worker: answers with the input's first sentence",
	TaskKinds: []worker.TaskKind{
		worker.TaskMerge, worker.TaskConflicts, worker.TaskSessionSummary,
		worker.TaskExtract, worker.TaskPlanDrift, worker.TaskGatekeeper,
	},
	Locality:      worker.LocalityLocal,
	Model:         "echo",
	MaxInputBytes: 64 << 10,
}

func (echo) Describe(context.Context) (worker.Info, error) { return info, nil }

// tokens estimates a text's tokens the way many tokenizers come out on
// English: one per four bytes, at least one.
func tokens(s string) int { return len(s)/4 + 1 }

func (echo) Run(ctx context.Context, t worker.Task) (worker.Answer, error) {
	if err := ctx.Err(); err != nil {
		return worker.Answer{}, err
	}
	if !info.Serves(t.Kind) {
		return worker.Answer{}, fmt.Errorf("%w: task kind %q is not served", worker.ErrInvalidInput, t.Kind)
	}
	if !t.Deadline.IsZero() && time.Now().After(t.Deadline) {
		return worker.Answer{}, worker.ErrTimeout
	}
	summary, _, _ := strings.Cut(strings.TrimSpace(t.Input), ". ")
	text := summary
	if t.Schema != "" {
		b, err := json.Marshal(map[string]string{"summary": summary})
		if err != nil {
			return worker.Answer{}, err
		}
		text = string(b)
	}
	// A real worker caps the model's output at what is left of the budget
	// after the input, and refuses when nothing is left; echo knows both
	// counts before it answers.
	usage := &worker.Usage{InputTokens: tokens(t.Instructions) + tokens(t.Input), OutputTokens: tokens(text)}
	if usage.Total() > t.TokenBudget {
		return worker.Answer{}, fmt.Errorf("%w: needs %d tokens, budget %d", worker.ErrOverBudget, usage.Total(), t.TokenBudget)
	}
	// Echo's one answer shape may not be what the task's schema wants: it
	// checks its answer and says so with the typed error instead of sending
	// what the host would refuse.
	a, err := t.CheckAnswer(worker.Answer{Text: text, Usage: usage, Model: info.Model})
	if err != nil {
		return worker.Answer{}, err
	}
	return a, nil
}

func (echo) Health(context.Context) error { return nil }
