package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestARunRecordsWhereItsStartGoes: with a timeline asked for (TimelineEnv), a run writes when
// it reached each step once the CLI has started, in an order that can only be real: the token
// before the banner, both the banner and the provider plugin before the plan, the plan before
// the CLI's exec. The benchmark attributes memhost run's overhead with it.
func TestARunRecordsWhereItsStartGoes(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	b.opts.Timeline, b.opts.TimelinePath = &Timeline{}, filepath.Join(t.TempDir(), "timeline.json")
	b.opts.Timeline.Mark(StepConfig)
	res, _ := b.run(t)
	require.True(t, res.Injected)
	data, err := os.ReadFile(b.opts.TimelinePath)
	require.NoError(t, err)
	var got Timeline
	require.NoError(t, json.Unmarshal(data, &got))
	at := map[string]int{}
	for i, s := range got.Steps {
		at[s.Step] = i
		if i > 0 {
			require.False(t, s.At.Before(got.Steps[i-1].At), "steps are written in the order they ended: %s", data)
		}
	}
	for _, step := range []string{StepConfig, StepToken, StepBanner, StepPlugin, StepPlan, StepExec} {
		require.Contains(t, at, step, "%s", data)
	}
	require.Less(t, at[StepToken], at[StepBanner])
	require.Less(t, at[StepBanner], at[StepPlan])
	require.Less(t, at[StepPlugin], at[StepPlan])
	require.Equal(t, len(got.Steps)-1, at[StepExec], "the CLI's start is the last step")
}
