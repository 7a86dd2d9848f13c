package spawn

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheSessionMarksSayWhoGaveTheBanner: a CLI memhost run gave the banner carries
// RunBannerEnv naming it, so the SessionStart hook memhost connect registered stands down (one
// banner, never two); when the user's own flags took the banner's channel it does not, so the
// hook gives it (never none). A CLI memhost run starts plain carries neither mark, even when
// the run itself sits in a session an outer memhost run marked.
func TestTheSessionMarksSayWhoGaveTheBanner(t *testing.T) {
	t.Parallel()
	outer := []string{RunSessionEnv + "=gemini", RunBannerEnv + "=gemini"}

	b := setup(t, "claude", "-p", "hi")
	b.opts.Env = append(b.opts.Env, outer...)
	res, rec := b.run(t)
	require.True(t, res.Injected)
	env := rec.env()
	require.Equal(t, "claude", env[RunBannerEnv])
	require.Equal(t, "claude", env[RunSessionEnv])
	require.True(t, MarkedByRun(mapEnv(env), RunBannerEnv, "claude"), "the hook stands down")
	require.False(t, MarkedByRun(mapEnv(env), RunBannerEnv, "gemini"), "another CLI started inside the session keeps its hook")

	b = setup(t, "claude", "--append-system-prompt", "be terse", "--settings", "{}", "-p", "hi")
	b.opts.Env = append(b.opts.Env, outer...)
	res, rec = b.run(t)
	require.True(t, res.Injected)
	env = rec.env()
	_, marked := env[RunBannerEnv]
	require.False(t, marked, "the provider had no channel for the banner: the hook gives it")
	require.Equal(t, "claude", env[RunSessionEnv], "memhost run still journals the session")

	b = setup(t, "gemini", "-p", "hi")
	b.opts.Host = nil // no host: the CLI runs plain
	b.opts.Env = append(b.opts.Env, outer...)
	res, rec = b.run(t)
	require.False(t, res.Injected)
	env = rec.env()
	for _, k := range []string{RunBannerEnv, RunSessionEnv} {
		_, marked := env[k]
		require.False(t, marked, "%s: a plain CLI's hooks give its banner and journal its session", k)
	}
}

// TestMarkedByRunReadsOlderMarks: memhost run before the banner mark set RunSessionEnv to "1"
// for any CLI; a hook given no --cli stands down for any mark.
func TestMarkedByRunReadsOlderMarks(t *testing.T) {
	t.Parallel()
	require.True(t, MarkedByRun(mapEnv(map[string]string{RunSessionEnv: "1"}), RunSessionEnv, "claude"))
	require.True(t, MarkedByRun(mapEnv(map[string]string{RunBannerEnv: "gemini"}), RunBannerEnv, ""))
	require.False(t, MarkedByRun(mapEnv(map[string]string{RunSessionEnv: "codex"}), RunSessionEnv, "claude"))
	require.False(t, MarkedByRun(mapEnv(nil), RunBannerEnv, "claude"))
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
