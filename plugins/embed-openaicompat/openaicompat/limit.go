package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/memhost/memhost/sdk/embedder"
)

// Two tails that differ in every word, appended to the same filler: if the
// runtime embeds them alike, it never read them.
const (
	tailA   = " apples oranges bananas"
	tailB   = " rockets planets comets"
	filler  = "the project keeps its notes in one shared memory "
	minRoom = len(filler) + len(tailA)
)

// checkLimit measures, once per process, whether the model reads a text as
// long as the declared limit (Info.MaxInputBytes, from
// MEMHOST_EMBEDDER_MAX_INPUT_TOKENS). Runtimes fail long input in two ways:
// some refuse it, which the probe sees as an error, and some silently embed
// only the start (Ollama caps some models' context below their card's),
// which it sees as two texts that differ only at the end embedding alike.
// Either way the declared limit is too high: every Embed is refused with a
// clear reason rather than storing vectors of truncated text. An
// unreachable runtime leaves the question open for the next call.
func (e *Embedder) checkLimit(ctx context.Context) error {
	e.mu.Lock()
	checked, verdict := e.limitChecked, e.limitErr
	e.mu.Unlock()
	if checked {
		return verdict
	}
	room := e.maxInputBytes()
	if room < minRoom {
		return e.settle(nil)
	}
	body := strings.Repeat(filler, (room-len(tailA))/len(filler))
	a, b := body+tailA, body+tailB
	vecs, err := e.request(ctx, []string{e.cfg.DocumentPrefix + a, e.cfg.DocumentPrefix + b})
	switch {
	// The advice comes first: a status line that cuts the message keeps it.
	case errors.Is(err, embedder.ErrInvalidInput):
		return e.settle(fmt.Errorf("%w: %s=%d is more than the model reads: set %s to the model's real context; "+
			"the runtime refuses a text of %d bytes, within that limit (%d bytes at %d bytes a token): %w",
			embedder.ErrInvalidInput, EnvMaxInputTokens, e.cfg.MaxInputTokens, EnvMaxInputTokens, len(a), room, BytesPerToken, err))
	case err != nil:
		return err
	case slices.Equal(vecs[0], vecs[1]):
		return e.settle(fmt.Errorf("%w: %s=%d is more than the model reads: set %s to the model's real context (for Ollama, also check the model's num_ctx); "+
			"the runtime silently cuts input shorter than %d bytes, so texts that differ only after that point embed alike",
			embedder.ErrInvalidInput, EnvMaxInputTokens, e.cfg.MaxInputTokens, EnvMaxInputTokens, len(a)))
	}
	return e.settle(nil)
}

// settle records the final verdict of checkLimit.
func (e *Embedder) settle(verdict error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if verdict != nil {
		e.log.Error("the model's context is shorter than the declared limit", "error", verdict)
	}
	e.limitChecked, e.limitErr = true, verdict
	return verdict
}
