package mcpserver

import (
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// sharedFields is the one wording of the input fields many tools share, filled into their
// descriptions by {name}. Codex sends every tool's schema with every model request, so each
// says what the model needs and no more. The fields every tool has (project, cwd, agent,
// session) carry no description: the server instructions explain them once (fieldsNote).
var sharedFields = []string{
	"{query}", "Words or a question; at most {max_text_bytes} bytes.",
	"{top_k}", "1 to {max_k}; default {default_k}.",
	"{kinds}", "Only these kinds; default all.",
	"{min_score}", "0 to 1.",
	"{include_archived}", "Include archived memories.",
	"{id}", "Memory id as shown, or the whole UUID.",
	"{cursor}", "next_cursor of the previous page.",
}

// describer fills the {placeholders} of input descriptions: the shared field wordings, then
// the limits this host enforces (they are configurable), so an agent reads the real ones
// rather than the defaults.
func describer(cfg memory.Config) func(string) string {
	fields := strings.NewReplacer(sharedFields...)
	limits := strings.NewReplacer(
		"{max_text_bytes}", strconv.Itoa(cfg.MaxTextBytes),
		"{max_k}", strconv.Itoa(cfg.MaxK),
		"{default_k}", strconv.Itoa(cfg.DefaultK),
	)
	return func(s string) string { return limits.Replace(fields.Replace(s)) }
}

// describe fills the placeholders of every description in s.
func describe(s *jsonschema.Schema, fill func(string) string) {
	if s == nil {
		return
	}
	s.Description = fill(s.Description)
	for _, p := range s.Properties {
		describe(p, fill)
	}
	describe(s.Items, fill)
}
