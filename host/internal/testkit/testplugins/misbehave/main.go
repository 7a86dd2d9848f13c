// Command misbehave is a test-only embedder plugin that breaks the protocol on purpose, so
// host tests can check that nothing a plugin sends is trusted. Its behaviour follows its
// file name, memhost-embedder-<mode>:
//
//   - nan, inf: a text containing "poison" gets a vector with a NaN (an +Inf) component;
//   - dims, count: a text containing "poison" gets a vector one short (no vector at all);
//   - zero: a text containing "poison" gets the zero vector, as a model answering nulls
//     (decoded as zeros) or a broken one does;
//   - crash: Embed writes plain text to stderr and then panics in a goroutine, which takes
//     the process down the way a real crash does;
//   - chatty: writes plain text, non-hclog JSON and hclog JSON with a millisecond timestamp
//     to stderr at start, and plain text through os.Stderr (carried by go-plugin over gRPC)
//     and straight to the stderr descriptor on every Embed;
//   - slowhealth: while the file beside the binary named slow.<binary> holds a number N > 0,
//     each Health call decrements it and answers after 300 ms, as a busy process on a loaded
//     machine does;
//   - onelane: a model that answers one request at a time, as a local CPU model does: Embed
//     and Health share one lane; a text "hold:N" keeps it N milliseconds, "wedge" forever;
//   - anything else: a well-behaved embedder.
//
// In every mode a text containing "reject" is refused as invalid input with a two-line
// message, and every vector echoes what arrived: component 0 is the text's length in bytes,
// component 1 is 1 when the text is valid UTF-8, so tests can see the host's truncation.
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memhost/memhost/sdk/embedder"
)

const (
	dims = 8
	// maxInputBytes is small so tests reach it with short texts.
	maxInputBytes = 32
)

func main() {
	mode := strings.TrimPrefix(filepath.Base(os.Args[0]), "memhost-embedder-")
	if mode == "chatty" {
		fmt.Fprintln(os.Stderr, "chatty: plain text at startup")
		fmt.Fprintln(os.Stderr, `{"level":"info","msg":"chatty: json that is not hclog"}`)
		fmt.Fprintln(os.Stderr, `{"@level":"warn","@message":"chatty: hclog with a millisecond timestamp","@timestamp":"2026-01-02T03:04:05.678Z","model":"tiny"}`)
	}
	if err := embedder.Serve(misbehaving{mode: mode}); err != nil {
		fmt.Fprintln(os.Stderr, "misbehave:", err)
		os.Exit(1)
	}
}

type misbehaving struct{ mode string }

// lane is the onelane mode's single worker: whoever holds a token is being answered.
var lane = make(chan struct{}, 1)

// takeLane waits for the lane, or for ctx.
func takeLane(ctx context.Context) (release func(), err error) {
	select {
	case lane <- struct{}{}:
		return func() { <-lane }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// holdLane serves the onelane mode's Embed: it keeps the lane as long as the texts ask.
func holdLane(ctx context.Context, texts []string) error {
	release, err := takeLane(ctx)
	if err != nil {
		return err
	}
	for _, t := range texts {
		switch {
		case t == "wedge":
			select {} // never answers, and never gives the lane back
		case strings.HasPrefix(t, "hold:"):
			ms, _ := strconv.Atoi(strings.TrimPrefix(t, "hold:"))
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
	}
	release()
	return nil
}

var _ embedder.Embedder = misbehaving{}

func (m misbehaving) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{
		Name:                   "misbehave-" + m.mode + "-v1-8",
		Version:                "0.0.1",
		Description:            "test plugin that breaks the protocol on purpose",
		Dimensions:             dims,
		MaxBatch:               16,
		MaxInputBytes:          maxInputBytes,
		SuggestedFoldThreshold: 0.9,
	}, nil
}

func (m misbehaving) Embed(ctx context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	switch m.mode {
	case "onelane":
		if err := holdLane(ctx, texts); err != nil {
			return nil, err
		}
	case "crash":
		stderr := os.NewFile(2, "stderr")
		fmt.Fprintln(stderr, "crash: the model file is corrupt, giving up")
		go func() { panic("misbehave: crashing on purpose") }()
		select {} // the panic ends the process
	case "chatty":
		fmt.Fprintln(os.Stderr, "chatty: plain text through os.Stderr")
		fmt.Fprintln(os.NewFile(2, "stderr"), "chatty: plain text on the stderr descriptor")
	}
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		if strings.Contains(t, "reject") {
			return nil, fmt.Errorf("%w: this text mentions reject\nand the reason spans lines", embedder.ErrInvalidInput)
		}
		v := make([]float32, dims)
		v[0] = float32(len(t))
		if utf8.ValidString(t) {
			v[1] = 1
		}
		for i := 2; i < dims; i++ {
			v[i] = 1
		}
		if strings.Contains(t, "poison") {
			switch m.mode {
			case "nan":
				v[3] = float32(math.NaN())
			case "inf":
				v[3] = float32(math.Inf(1))
			case "zero":
				v = make([]float32, dims)
			case "dims":
				v = v[:dims-1]
			case "count":
				continue
			}
		}
		out = append(out, v)
	}
	return out, nil
}

func (m misbehaving) Health(ctx context.Context) error {
	if m.mode == "onelane" {
		release, err := takeLane(ctx)
		if err != nil {
			return err
		}
		release()
		return nil
	}
	if m.mode != "slowhealth" {
		return nil
	}
	slow := filepath.Join(filepath.Dir(os.Args[0]), "slow."+filepath.Base(os.Args[0]))
	b, err := os.ReadFile(slow)
	if err != nil {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return nil
	}
	if err := os.WriteFile(slow, []byte(strconv.Itoa(n-1)), 0o600); err != nil {
		return fmt.Errorf("misbehave: %w", err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}
