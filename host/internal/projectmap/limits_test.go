package projectmap_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/projectmap"
)

func TestDecodeAcceptsWhatBuildWrites(t *testing.T) {
	t.Parallel()
	m := bigMap()
	m.Truncated = nil
	require.NoError(t, m.Validate())
	data, err := json.Marshal(m)
	require.NoError(t, err)
	require.Less(t, len(data), projectmap.MaxJSONBytes)
	back, err := projectmap.Decode(data)
	require.NoError(t, err)
	require.Equal(t, m, back)

	// Fields a later writer of the same format adds are ignored, not refused.
	withExtra := strings.Replace(string(data), `"format":1,`, `"format":1,"owner":"someone",`, 1)
	_, err = projectmap.Decode([]byte(withExtra))
	require.NoError(t, err)
}

func TestDecodeRejectsBadMapsNamingTheField(t *testing.T) {
	t.Parallel()
	valid, err := json.Marshal(bigMap())
	require.NoError(t, err)
	// with replaces one field of the valid map's JSON.
	with := func(field string, value any) string {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(valid, &doc))
		doc[field] = value
		out, err := json.Marshal(doc)
		require.NoError(t, err)
		return string(out)
	}
	many := func(n int, item any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = item
		}
		return out
	}
	for _, tc := range []struct {
		name, input, field, message string
	}{
		{"newer format", with("format", 2), "format", "2 is newer than this host understands (1)"},
		{"missing format", `{"files":1}`, "format", "must be the integer 1"},
		{"format as text", with("format", "1"), "format", "must be the integer 1"},
		{"older format", with("format", 0), "format", "must be 1"},
		{"not JSON", `{"format":1,`, "map", "is not valid JSON"},
		{"not an object", `[1,2]`, "map", "must be a JSON object"},
		{"two objects", string(valid) + `{}`, "map", "is not valid JSON"},
		{"oversized", `{"format":1,"description":"` + strings.Repeat("x", projectmap.MaxJSONBytes) + `"}`, "map", fmt.Sprintf("the limit is %d bytes", projectmap.MaxJSONBytes)},
		{"wrong type", with("files", "many"), "files", "has the wrong type (string)"},
		{"negative count", with("files", -1), "files", "must not be negative"},
		{"no time", with("generated_at", "0001-01-01T00:00:00Z"), "generated_at", "must be set"},
		{"long description", with("description", strings.Repeat("é", 101)), "description", "is 202 bytes; the limit is 200 bytes"},
		{"too many languages", with("languages", many(17, map[string]any{"name": "Go", "files": 1})), "languages", "has 17 entries; the limit is 16"},
		{"too many commands", with("commands", many(81, map[string]any{"kind": "test", "run": "make", "source": "Makefile"})), "commands", "has 81 entries; the limit is 80"},
		{"empty command", with("commands", []any{map[string]any{"kind": "test", "run": " ", "source": "Makefile"}}), "commands[0].run", "must not be empty"},
		{"absolute path", with("key_files", []any{"/etc/passwd"}), "key_files[0]", "must be a relative path"},
		{"escaping path", with("commands", []any{map[string]any{"kind": "test", "run": "make", "dir": "a/../../b", "source": "Makefile"}}), "commands[0].dir", "must stay inside the project"},
		{"NUL in text", with("dirs", []any{map[string]any{"path": "a", "files": 1, "description": "a\u0000b"}}), "dirs[0].description", "valid UTF-8 without NUL"},
		{"long path", with("entry_points", []any{strings.Repeat("a/", 300)}), "entry_points[0]", "the limit is 512 bytes"},
		{"bad hot file", with("git", map[string]any{"recent": map[string]any{"hot_files": []any{map[string]any{"path": "/x", "commits": 1}}}}), "git.recent.hot_files[0].path", "relative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := projectmap.Decode([]byte(tc.input))
			var fe *projectmap.FieldError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, tc.field, fe.Field)
			require.Contains(t, fe.Message, tc.message)
			// Words for a user: no Go type names or package paths.
			require.NotRegexp(t, `projectmap\.|Go struct|\bint\b|float64`, fe.Error())
		})
	}
}
