package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONBTextIsPostgresText: a map as the host's REST answer carries it prints as the
// database's jsonb text, which is what map show --json printed before it went through the host.
func TestJSONBTextIsPostgresText(t *testing.T) {
	t.Parallel()
	stored := `{"dirs": [], "commands": [{"run": "make build && ./bin/x <in >out", "kind": "build"}], "text": "a \"quoted\" \\ back, slash: here", "n": 1.5}`
	viaHost, err := json.Marshal(struct {
		Map json.RawMessage `json:"map"`
	}{json.RawMessage(stored)})
	require.NoError(t, err)
	var got struct {
		Map json.RawMessage `json:"map"`
	}
	require.NoError(t, json.Unmarshal(viaHost, &got))
	require.NotEqual(t, stored, string(got.Map), "the REST answer compacts and escapes")
	require.Equal(t, stored, jsonbText(got.Map))
	require.Equal(t, stored, jsonbText(json.RawMessage(stored)), "the database's own text is printed as it is")
}
