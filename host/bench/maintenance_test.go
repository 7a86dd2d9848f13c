package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The stand-in model answers by the task's schema: a merge keeps the longest statement.
func TestChatFakeAnswersByTheTasksSchema(t *testing.T) {
	t.Parallel()
	f := newChatFake()
	defer f.close()
	ask := func(schema, input string) map[string]any {
		body, _ := json.Marshal(map[string]any{
			"model":           "bench-fake",
			"messages":        []map[string]string{{"role": "system", "content": "instructions"}, {"role": "user", "content": input}},
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "schema": json.RawMessage(schema)}},
		})
		resp, err := http.Post(f.url()+"/chat/completions", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		var answer map[string]any
		require.NoError(t, json.Unmarshal([]byte(out.Choices[0].Message.Content), &answer))
		return answer
	}
	merged := ask(`{"required":["same","text"]}`, "1. Use pnpm.\n2. The frontend uses pnpm 9, not npm.\n")
	require.Equal(t, true, merged["same"])
	require.Equal(t, "The frontend uses pnpm 9, not npm.", merged["text"])
	require.Equal(t, map[string]any{"pairs": []any{}}, ask(`{"required":["pairs"]}`, "1. a\n2. b\n"))
	require.EqualValues(t, 2, f.calls.Load())
}

// A pass that slows agents' p99 past 1.5x idle is marked a miss.
func TestRenderMaintenanceMarksSlowdown(t *testing.T) {
	t.Parallel()
	lat := func(p99 time.Duration) Latency { return Latency{N: 10, P50: p99 / 2, P99: p99} }
	var b strings.Builder
	renderMaintenance(&b, MaintenanceBench{Memories: 1000, Projects: 10,
		Jobs:      []MaintenanceJobRun{{Job: "consolidate", Outcome: "ok", Examined: 1000, Changed: 12, LLMCalls: 5, Tokens: 900}},
		IdleStore: lat(10 * time.Millisecond), BusyStore: lat(14 * time.Millisecond),
		IdleSearch: lat(10 * time.Millisecond), BusySearch: lat(16 * time.Millisecond)})
	out := b.String()
	require.Contains(t, out, "| consolidate |")
	require.Contains(t, out, "| 5.0 | 900.0 |", "per 1,000 memories")
	require.Regexp(t, `memory_store .*\| 1\.40x \| <= 1\.5x \| PASS \|`, out)
	require.Regexp(t, `memory_search .*\| 1\.60x \| <= 1\.5x \| \*\*MISS\*\* \|`, out)
}
