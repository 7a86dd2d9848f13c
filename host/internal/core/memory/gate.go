package memory

import (
	"context"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// Gatekeeper judges, before a write is stored, whether its text is durable project knowledge
// (issue 18's optional gatekeeper). Veto returns why the text is not worth keeping, or "" to
// let the write proceed. It must return within its own hard budget and fail open: a timeout,
// an error or no worker all return "".
type Gatekeeper interface {
	Veto(ctx context.Context, project, text string) string
}

// WithGatekeeper has every Store asked of gk first (off unless configured).
func WithGatekeeper(gk Gatekeeper) Option { return func(s *Service) { s.gate = gk } }

// veto asks the gatekeeper, if any, about w's text; it runs beside the embedding, so a write
// waits for the slower of the two, not their sum.
func (s *Service) veto(ctx context.Context, project, text string) <-chan string {
	out := make(chan string, 1)
	if s.gate == nil {
		out <- ""
		return out
	}
	go func() { out <- s.vetoReason(s.gate.Veto(ctx, project, text)) }()
	return out
}

// vetoReason holds a veto's reason, a model's words, to the rules of a one-line field
// (ModelLine); one that breaks them still vetoes, saying so in memhost's words.
func (s *Service) vetoReason(why string) string {
	if why == "" {
		return ""
	}
	if clean, err := s.ModelLine("vetoed", why, rules.MaxReasonBytes); err == nil && clean != "" {
		return clean
	}
	return "not stored: the gatekeeper judged it not durable"
}
