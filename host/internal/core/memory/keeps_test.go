package memory_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestUnkept is the merge guard's table: what a text a merge would keep (canonical) fails to
// keep of an input. Every meaning change issue 25 saw a merge make is a row, with the ones the
// guard already refused and the rewordings it must let through.
func TestUnkept(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, input, canonical string
		want                   []string
	}{
		// Kept: the same fact in other words, or refined.
		{"rewording keeps everything", "CI runs on Buildkite", "Our CI is Buildkite", nil},
		{"negation kept", "don't run migrations by hand", "never run migrations by hand", nil},
		{"version kept", "we build with Go 1.24", "Go 1.24 builds the project", nil},
		{"added specific is a refinement", "use pnpm", "use pnpm 9", nil},
		{"number spelt out", "retry three times", "retry 3 times", nil},
		{"unit written apart", "uploads are capped at 10 MB", "the upload cap is 10MB", nil},
		{"unit spelt out", "uploads are capped at 10 MB", "uploads are capped at 10 megabytes", nil},
		{"same ports, other clause order", "the api listens on 8080, metrics on 9090", "metrics use port 9090 and the api port is 8080", nil},
		{"a number with a word the other has", "The api runs 28 replicas in prod", "Production has 28 api pods", nil},
		{"relative path with ./", "build output goes to ./dist/app", "build output goes to dist/app", nil},

		// Lost specifics (the guard's first rule).
		{"version changed", "we build with Go 1.24", "we build with Go 1.23", []string{"1.24"}},
		{"number dropped", "api-web runs 28 replicas", "api-web runs replicas", []string{"28"}},
		{"path dropped", "config lives in /etc/memhost/config.toml", "config lives in /etc", []string{"/etc/memhost/config.toml"}},
		{"identifier dropped", "call parseHTTP before pg_stage", "call the parser before pg_stage", []string{"parsehttp"}},
		{"url host changed", "the docs live at https://docs.acme.dev/api", "the docs live at https://docs.evil.dev/api", []string{"https://docs.acme.dev/api"}},
		{"three became five (issue 25)", "the api runs three replicas", "the api runs five replicas", []string{"3"}},
		{"10 MB became 10 GB (issue 25)", "uploads are capped at 10 MB", "uploads are capped at 10 GB", []string{"10mb"}},
		{"absolute path became relative (issue 25)", "build output goes to /dist/app", "build output goes to ./dist/app", []string{"/dist/app"}},

		// Sense.
		{"not dropped", "do not use npm", "use npm", []string{"negation"}},
		{"never dropped", "never push to main", "push to main", []string{"negation"}},
		{"isn't dropped (issue 25)", "the cache isn't shared between jobs", "the cache is shared between jobs", []string{"negation"}},
		{"no longer dropped (issue 25)", "we no longer deploy on Fridays", "we deploy on Fridays", []string{"negation"}},
		{"avoid became prefer (issue 25)", "avoid mocks in integration tests", "prefer mocks in integration tests", []string{"negation"}},
		{"negation added", "use npm", "do not use npm", []string{"negation"}},
		{"reversal dropped", "stop using the legacy queue", "use the legacy queue", []string{"reversal"}},
		{"restriction dropped", "only admins may deploy", "admins may deploy", []string{"restriction"}},

		// Word order and pairing.
		{"tabs not spaces became spaces not tabs (issue 25)", "indent with tabs, not spaces", "indent with spaces, not tabs", []string{"word order"}},
		{"ports swapped between services (issue 25)", "the api listens on 8080 and metrics on 9090", "the api listens on 9090 and metrics on 8080",
			[]string{"what 8080 goes with", "what 9090 goes with"}},
		{"a number counts another thing", "the api runs 3 replicas", "the api runs 3 workers", []string{"what 3 goes with"}},

		// Who said it.
		{"speaker changed", "[7:48 pm] Tim: we ship on Friday", "[7:48 pm] John: we ship on Friday", []string{"head 7 48 pm tim"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, memory.Unkept(tc.input, tc.canonical))
		})
	}
}

// TestMergeTextKeepsAnInputsOwnText: a merge keeps the survivor's text when it says what every
// input says, else the input that does, and nothing when none does.
func TestMergeTextKeepsAnInputsOwnText(t *testing.T) {
	t.Parallel()
	text, why := memory.MergeText([]string{"The api runs 28 replicas in prod", "Production has 28 api pods"})
	require.Equal(t, "The api runs 28 replicas in prod", text)
	require.Nil(t, why)

	text, why = memory.MergeText([]string{"use pnpm", "use pnpm 9 for installs", "pnpm 9 installs"})
	require.Equal(t, "use pnpm 9 for installs", text, "the input holding every specific")
	require.Nil(t, why)

	text, why = memory.MergeText([]string{"indent with tabs, not spaces", "indent with spaces, not tabs"})
	require.Empty(t, text)
	require.Equal(t, []string{"word order"}, why)

	text, why = memory.MergeText([]string{"deploys go to region eu-west-1", "deploys go to region us-east-1"})
	require.Empty(t, text, "each says what the other does not")
	require.Equal(t, []string{"us-east-1"}, why)
}
