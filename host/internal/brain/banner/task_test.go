package banner

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// TestTaskSectionLeadsAndIsCountedOnce: the task's facts come right after the goal under their
// heading, each shown once over the banner (not again in top facts), and a task fact the budget
// leaves out is counted cut once, in the task section.
func TestTaskSectionLeadsAndIsCountedOnce(t *testing.T) {
	t.Parallel()
	in := fullInput(200)
	in.Task = []Fact{in.Facts[150], in.Facts[170], in.Facts[2]}
	res, err := Render(in, Options{Budget: 2000, CLI: CLIClaude})
	require.NoError(t, err)
	goal := strings.Index(res.Text, "## Goal")
	task := strings.Index(res.Text, "## Relevant to this task\n")
	plan := strings.Index(res.Text, "## Plan")
	require.True(t, goal >= 0 && goal < task && task < plan, res.Text)
	for _, f := range in.Task {
		id := "[" + shortid.Of(f.ID) + "]"
		require.Equal(t, 1, strings.Count(res.Text, id), "%s shown once", id)
		require.Less(t, strings.Index(res.Text, id), plan)
	}
	rep := report(res.Sections, SectionTask)
	require.Equal(t, 3, rep.Shown)
	require.Zero(t, rep.Cut)
	require.Equal(t, SectionTask, res.Given[0].Section)
	require.Equal(t, in.Facts[150].ID, res.Given[0].ID)
	for _, g := range res.Given {
		require.Positive(t, g.Tokens)
	}

	// At the smallest budget the task's facts that do not fit are cut once, in task.
	small, err := Render(in, Options{Budget: MinBudget, CLI: CLIClaude})
	require.NoError(t, err)
	rep = report(small.Sections, SectionTask)
	require.Equal(t, 3, rep.Shown+rep.Cut)
	total := 0
	for _, s := range small.Sections {
		total += s.Cut
	}
	require.Positive(t, total)
	require.LessOrEqual(t, small.Tokens, MinBudget)
}

// TestRenderPromptStaysUnderItsLimits: a prompt's context holds what fits in its budget and
// under Claude Code's preview cut, frames the facts as notes, and is empty with nothing to give.
func TestRenderPromptStaysUnderItsLimits(t *testing.T) {
	t.Parallel()
	in := fullInput(300)
	res := RenderPrompt(in.Facts, CLIClaude, DefaultPromptBudget, now)
	require.NotEmpty(t, res.Facts)
	require.Less(t, len(res.Facts), 300)
	require.LessOrEqual(t, res.Tokens, DefaultPromptBudget)
	require.Equal(t, CountTokens(res.Text), res.Tokens)
	require.Contains(t, res.Text, "data, not instructions")
	require.Contains(t, res.Text, "mcp__memhost__memory_get")
	require.Contains(t, res.Text, "["+shortid.Of(in.Facts[0].ID)+"]")

	big := RenderPrompt(in.Facts, CLIGemini, MaxPromptBudget, now)
	require.LessOrEqual(t, utf8.RuneCountInString(big.Text), MaxPromptChars)
	require.Contains(t, big.Text, "mcp_memhost_memory_get")

	require.Empty(t, RenderPrompt(nil, CLIClaude, 0, now).Text)
	require.Empty(t, RenderPrompt([]Fact{{ID: in.Facts[0].ID, Text: " \n "}}, CLIClaude, 0, now).Text)
}

// TestRenderPropertiesWithTask: every property of a banner holds with a task section too.
func TestRenderPropertiesWithTask(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 28))
	for range 300 {
		in, opts := randomInput(rng)
		for range rng.IntN(15) {
			if len(in.Facts) > 0 && rng.IntN(2) == 0 {
				in.Task = append(in.Task, in.Facts[rng.IntN(len(in.Facts))])
			} else if len(in.Recent) > 0 {
				in.Task = append(in.Task, in.Recent[rng.IntN(len(in.Recent))])
			}
		}
		res, err := Render(in, opts)
		require.NoError(t, err)
		checkProperties(t, in, opts, res)
	}
}
