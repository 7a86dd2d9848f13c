package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sse writes server-sent events, flushing each one so the CLI sees it at once.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w: w}
}

// event writes one event; an empty name writes a data-only event (Gemini's form).
func (s sse) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		// Only the stand-in's own maps reach here; they always marshal.
		panic(fmt.Sprintf("standin: marshal %s event: %v", name, err))
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}
