package standin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// setup starts a stand-in for proto with script and closes it when the test ends.
func setup(t *testing.T, proto Protocol, script ...Turn) *Server {
	t.Helper()
	s, err := New(proto, script...)
	require.NoError(t, err)
	require.NoError(t, s.Start())
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// event is one parsed server-sent event.
type event struct {
	name string
	data map[string]any
}

// post sends body to path and returns the status and the raw reply.
func post(t *testing.T, s *Server, path string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(s.URL()+path, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out
}

// postSSE sends body and parses the event stream it answers.
func postSSE(t *testing.T, s *Server, path string, body any) []event {
	t.Helper()
	status, raw := post(t, s, path, body)
	require.Equal(t, http.StatusOK, status, string(raw))
	var events []event
	var name string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data), line)
			events = append(events, event{name: name, data: data})
			name = ""
		}
	}
	return events
}

func names(events []event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.name
	}
	return out
}

// dig walks nested maps and slices by key or index.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
