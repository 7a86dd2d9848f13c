package provider_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
)

// TestScanReadsArgumentsAsTheCLIsDo: values taken by their option (one, optional, many), the
// --name=value and -xVALUE forms, flag clusters, and "--".
func TestScanReadsArgumentsAsTheCLIsDo(t *testing.T) {
	t.Parallel()
	o := provider.Options{"--model": provider.One, "-m": provider.One, "--debug": provider.Optional, "--add-dir": provider.Many}
	for _, tc := range []struct {
		args       []string
		positional []string
		values     map[string][]string
	}{
		{[]string{"-p", "fix it"}, []string{"fix it"}, map[string][]string{}},
		{[]string{"--model", "opus", "fix it"}, []string{"fix it"}, map[string][]string{"--model": {"opus"}}},
		{[]string{"--model=opus", "fix it"}, []string{"fix it"}, map[string][]string{"--model": {"opus"}}},
		{[]string{"-mopus", "fix it"}, []string{"fix it"}, map[string][]string{"-m": {"opus"}}},
		{[]string{"-pv", "fix it"}, []string{"fix it"}, map[string][]string{}},
		{[]string{"--debug", "fix it"}, nil, map[string][]string{"--debug": {"fix it"}}},
		{[]string{"--debug", "-p", "fix it"}, []string{"fix it"}, map[string][]string{}},
		{[]string{"--add-dir", "a", "b", "-p", "fix it"}, []string{"fix it"}, map[string][]string{"--add-dir": {"a", "b"}}},
		{[]string{"--add-dir", "a", "fix it"}, nil, map[string][]string{"--add-dir": {"a", "fix it"}}},
		{[]string{"--", "--model", "x"}, []string{"--model", "x"}, map[string][]string{}},
		{[]string{"--model"}, nil, map[string][]string{}},
	} {
		s := o.Scan(tc.args)
		require.Equal(t, tc.positional, s.Positional, "%q", tc.args)
		require.Equal(t, tc.values, s.Values, "%q", tc.args)
	}
	require.Equal(t, "b", provider.Options{"-x": provider.One, "--ex": provider.One}.Scan([]string{"-x", "a", "--ex", "b"}).Value("-x", "--ex"))
}
