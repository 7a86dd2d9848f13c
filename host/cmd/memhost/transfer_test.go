package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

func TestScopeFlagValidatesTheProjectKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"\x1b[31mred\x1b[0m":     "--project: must not contain control characters (found U+001B)",
		"app\nInjected: line":    "--project: must not contain control characters (found U+000A)",
		"app\u200b":              "--project: must not contain invisible format characters such as zero-width spaces or bidi overrides (found U+200B)",
		strings.Repeat("k", 600): "--project: 600 bytes exceeds the limit of 512 bytes",
		"   ":                    "--project: must not be empty",
	} {
		for _, cmd := range []func() *cobra.Command{importCmd, exportCmd} {
			c := cmd()
			require.NoError(t, c.Flags().Set("project", key))
			_, err := scopeFlag(c)
			require.EqualError(t, err, want, "%q", key)
		}
	}
	c := importCmd()
	require.NoError(t, c.Flags().Set("project", " laptop/app "))
	scope, err := scopeFlag(c)
	require.NoError(t, err)
	require.Equal(t, store.Project("laptop/app"), scope, "surrounding blanks are trimmed, as on every surface")
}
