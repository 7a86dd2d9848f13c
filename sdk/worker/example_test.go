package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/worker"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

// firstSentence is a toy worker: it answers with its input's first
// sentence, as {"summary": ...} when asked for JSON.
type firstSentence struct{}

var _ worker.Worker = firstSentence{}

var toyInfo = worker.Info{
	Name: "first-sentence", Version: "1.0.0", Description: "toy",
	TaskKinds: []worker.TaskKind{worker.TaskSessionSummary},
	Locality:  worker.LocalityLocal, Model: "none", MaxInputBytes: 1 << 16,
}

func (firstSentence) Describe(context.Context) (worker.Info, error) { return toyInfo, nil }

func (firstSentence) Run(ctx context.Context, t worker.Task) (worker.Answer, error) {
	if err := ctx.Err(); err != nil {
		return worker.Answer{}, err
	}
	if !toyInfo.Serves(t.Kind) {
		return worker.Answer{}, fmt.Errorf("%w: kind %q", worker.ErrInvalidInput, t.Kind)
	}
	text, _, _ := strings.Cut(t.Input, ". ")
	if t.Schema != "" {
		b, _ := json.Marshal(map[string]string{"summary": text})
		text = string(b)
	}
	used := worker.Usage{InputTokens: len(t.Input) / 4, OutputTokens: len(text) / 4}
	if used.Total() > t.TokenBudget {
		return worker.Answer{}, worker.ErrOverBudget
	}
	return worker.Answer{Text: text, Usage: &used, Model: "none"}, nil
}

func (firstSentence) Health(context.Context) error { return nil }

// A host gives a worker a task and gets back an answer held to the task's
// schema and budget; here the worker is called directly and the answer
// checked as the SDK's client checks it.
func Example() {
	task := worker.Task{
		Kind:         worker.TaskSessionSummary,
		Instructions: "Summarise the session in one sentence.",
		Input:        "We moved the API to port 8080. Tests pass.",
		Schema:       `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`,
		Deadline:     time.Now().Add(time.Minute),
		TokenBudget:  100,
	}
	if err := task.Validate(toyInfo); err != nil {
		fmt.Println("invalid task:", err)
		return
	}
	a, err := firstSentence{}.Run(context.Background(), task)
	if err != nil {
		fmt.Println("failed:", err)
		return
	}
	a, err = task.CheckAnswer(a)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Println(string(a.JSON), a.Usage.Total(), "tokens")

	_, err = task.CheckAnswer(worker.Answer{Text: `{"summary": 42}`})
	fmt.Println(err != nil)
	// Output:
	// {"summary":"We moved the API to port 8080"} 20 tokens
	// true
}

// A plugin's main is a few lines; Serve returns only when the host shuts
// the plugin down (nil) or when it cannot serve (run by hand, for
// instance), so this example is compiled but not run.
func ExampleServe() {
	if err := worker.Serve(firstSentence{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Plugin authors run the conformance kit in their own _test.go files, on
// the implementation and through the real gRPC wire.
func Example_conformance() {
	conformance := func(t *testing.T) {
		workertest.Exercise(t, firstSentence{})
		workertest.Exercise(t, workertest.Serve(t, firstSentence{}))
	}
	_ = conformance
}
