package textcut

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCut(t *testing.T) {
	t.Parallel()
	require.Equal(t, "short", Cut("short", 5, "…"))
	require.Equal(t, "ab…", Cut("abcdef", 2, "…"))
	require.Equal(t, "a...", Cut("aé", 2, "..."), "never inside a rune")
}

func TestLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "one two three", Line("one\n  two\tthree\n", 100))
	require.Equal(t, "one tw...", Line("one\ntwo three", 6))
}
