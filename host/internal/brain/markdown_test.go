package brain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitMarkdownKeepsEveryLine(t *testing.T) {
	t.Parallel()
	doc := "# Project notes\n\nIntro paragraph\nspanning two lines.\n\n## Testing\n\n- Run `go test -race ./...`.\n  - Needs TZ=UTC.\n- Lint with golangci-lint.\n\n" +
		"## Empty\n\n## Build\n\n```sh\nmake build\n\nmake test\n```\n\n1. First step\n2. Second step\n"
	fm, chunks := splitMarkdown(doc, 16384)
	got := texts(chunks)
	require.Equal(t, frontMatter{}, fm)
	require.Equal(t, []string{
		"Project notes: Intro paragraph\nspanning two lines.",
		"Project notes > Testing: Run `go test -race ./...`.\n  - Needs TZ=UTC.",
		"Project notes > Testing: Lint with golangci-lint.",
		"Project notes > Empty",
		"Project notes > Build: ```sh\nmake build\n\nmake test\n```",
		"Project notes > Build: First step",
		"Project notes > Build: Second step",
	}, got)
	// Lossless: every non-blank line of the document is in some piece, less its list marker.
	joined := strings.Join(got, "\n")
	for _, line := range strings.Split(doc, "\n") {
		if l := withoutMarker(strings.TrimLeft(strings.TrimSpace(line), "# ")); l != "" {
			require.Contains(t, joined, l)
		}
	}
}

func TestSplitMarkdownFrontMatterAndLongPieces(t *testing.T) {
	t.Parallel()
	doc := "---\nname: Deploys\ndescription: How we deploy\ntype: feedback\n---\n\nUse the blue-green script.\n\n" + strings.Repeat("word ", 100) + "\n"
	fm, chunks := splitMarkdown(doc, 120)
	got := texts(chunks)
	require.Equal(t, frontMatter{Name: "Deploys", Description: "How we deploy", Type: "feedback"}, fm)
	require.Equal(t, "Deploys: How we deploy", got[0])
	require.Equal(t, "Deploys: Use the blue-green script.", got[1])
	require.Greater(t, len(got), 3, "the long paragraph is split")
	total := 0
	for _, p := range got[2:] {
		require.LessOrEqual(t, len(p), 120)
		require.True(t, strings.HasPrefix(p, "Deploys: "))
		total += strings.Count(p, "word")
	}
	require.Equal(t, 100, total, "nothing lost in the split")
}

func TestEncodeProjectFolder(t *testing.T) {
	t.Parallel()
	require.Equal(t, "-home-ana-src-my-app-v2", EncodeProjectFolder("/home/ana/src/my_app.v2"))
	require.Equal(t, "-tmp-caf-", EncodeProjectFolder("/tmp/café"))
}

func texts(chunks []chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.text
	}
	return out
}
