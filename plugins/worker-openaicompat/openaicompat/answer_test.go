package openaicompat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSONCandidates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       []string
	}{
		{"whole", `  {"a": 1}  `, []string{`{"a": 1}`}},
		{"array", `[1, 2]`, []string{`[1, 2]`}},
		{"json fence first", "Here:\n```json\n{\"a\": [1, {\"b\": \"}\"}]}\n```\nDone.", []string{`{"a": [1, {"b": "}"}]}`, `{"a": [1, {"b": "}"}]}`}},
		{"untagged fence", "```\n{\"a\": 1}\n```", []string{`{"a": 1}`, `{"a": 1}`}},
		{"fence of another language is only prose", "```go\nx := f(a[0])\n```\nthen {\"a\": 1}", []string{`[0]`, `{"a": 1}`}},
		{"prose", `I think the answer is {"verdict": "keep", "why": "a {brace} in a string"} — hope that helps`, []string{`{"verdict": "keep", "why": "a {brace} in a string"}`}},
		{"prose with an earlier non-JSON bracket", `Options [a, b] considered; answer: {"ok": true}`, []string{`{"ok": true}`}},
		{"escaped quote in string", `x {"s": "say \"}\" loudly"} y`, []string{`{"s": "say \"}\" loudly"}`}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, jsonCandidates(c.text), c.name)
	}
	for _, text := range []string{"", "no json here", "{unclosed", "```json\nnot json\n```", strings.Repeat("{", 10000)} {
		require.Empty(t, jsonCandidates(text), "%.40q", text)
	}
}
