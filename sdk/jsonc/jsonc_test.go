package jsonc_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/jsonc"
)

func TestStripComments(t *testing.T) {
	t.Parallel()
	in := "{\n  // line comment\n  \"url\": \"http://x//y\", /* block\n comment */ \"s\": \"a \\\" /* not */\"\n}\n/* unterminated"
	out := jsonc.StripComments([]byte(in))
	require.Len(t, out, len(in), "offsets are kept")
	var doc map[string]string
	require.NoError(t, json.Unmarshal(out, &doc))
	require.Equal(t, map[string]string{"url": "http://x//y", "s": "a \" /* not */"}, doc)
	require.Equal(t, countNewlines([]byte(in)), countNewlines(out), "newlines are kept")
	require.Equal(t, "{\n  // line comment", in[:19], "the input is not changed")
}

func countNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func ExampleStripComments() {
	settings := []byte(`{
  // the model Gemini CLI uses
  "model": "gemini-2.5-pro"
}`)
	var doc map[string]string
	if err := json.Unmarshal(jsonc.StripComments(settings), &doc); err != nil {
		panic(err)
	}
	fmt.Println(doc["model"])
	// Output: gemini-2.5-pro
}
