package plugins

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

func TestLineWriter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	relay := newOutputRelay(hclog.New(&hclog.LoggerOptions{Name: "p", Output: &out, Level: hclog.Trace, DisableTime: true}))
	w := relay.stream("stderr")

	// Chunks split anywhere, as a stdio stream delivers them.
	for _, chunk := range []string{"first li", "ne\r\n\n[WARN] warned\n{\"@level\":\"error\",", "\"@message\":\"json\",\"@timestamp\":\"x\",\"n\":3}\n",
		"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\nno newline at the end"} {
		_, err := w.Write([]byte(chunk))
		require.NoError(t, err)
	}
	require.Equal(t, "panic: boom", relay.lastWords(), "a panic's first line outlives its trace")
	w.flush()
	require.Equal(t, strings.Join([]string{
		"[INFO]  p: first line",
		"[WARN]  p: warned",
		"[ERROR] p: json: n=3",
		"[ERROR] p: panic: boom",
		"[ERROR] p: goroutine 1 [running]:",
		"[ERROR] p: main.main()",
		"[ERROR] p: no newline at the end",
	}, "\n")+"\n", out.String())

	out.Reset()
	stdout := relay.stream("stdout")
	_, _ = stdout.Write([]byte("printed\n"))
	require.Equal(t, "[INFO]  p: printed: stream=stdout\n", out.String())
	require.Equal(t, "printed", relay.lastWords())
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "a b c", OneLine("  a\n\n\tb \x1b c\n", 100))
	require.Equal(t, "abcdefg...", OneLine("abcdefghijklmnop", 10))
	require.Equal(t, "é...", OneLine("ééééé", 6), "never cuts a character in half")
}
