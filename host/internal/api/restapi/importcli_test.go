package restapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
)

// importBody is an import-cli body of files.
func importBody(t *testing.T, files ...brain.ImportFile) string {
	t.Helper()
	data, err := json.Marshal(brain.ImportBatch{Files: files})
	require.NoError(t, err)
	return string(data)
}

// TestImportCLIRoute: an admin stores the files the CLI read, and a second import adds nothing;
// an agent's token may not bulk-import, a bound token reaches its own project only, and a field
// that breaks a rule is named with nothing stored. A batch larger than the usual body limit fits.
func TestImportCLIRoute(t *testing.T) {
	t.Parallel()
	b, count := setupProjects(t)
	admin := b.token(t, "", auth.ScopeAdmin)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	boundAdmin := b.token(t, projA, auth.ScopeAdmin)
	claude := brain.ImportFile{Path: "~/src/app/CLAUDE.md", Source: brain.SourceInstructions, Text: "# Rules\n\n- Use pnpm.\n- Tests need TZ=UTC.\n"}
	unread := brain.ImportFile{Path: "~/.claude/projects/-src-app/memory/x.md", Source: "claude-memory", Error: "cannot read the file"}
	body := importBody(t, claude, unread)

	r := b.do(t, agent, "POST", at(projA, "import-cli"), body)
	require.Equal(t, http.StatusForbidden, r.status, "an agent's token may not bulk-import")
	r = b.do(t, boundAdmin, "POST", at(projB, "import-cli"), body)
	require.Equal(t, http.StatusForbidden, r.status, "a bound token reaches its own project only")

	r = b.do(t, admin, "POST", at(projA, "import-cli"), body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, projA, r.body["project"])
	require.EqualValues(t, 2, r.body["added"])
	files := r.body["files"].([]any)
	require.Len(t, files, 2)
	require.Equal(t, "cannot read the file", files[1].(map[string]any)["error"])
	require.Equal(t, 2, count(`SELECT count(*) FROM memories WHERE source = 'import-cli:~/src/app/CLAUDE.md'`))

	r = b.do(t, admin, "POST", at(projA, "import-cli"), body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.EqualValues(t, 0, r.body["added"], "a second import adds nothing")
	require.EqualValues(t, 2, r.body["skipped"])

	bad := importBody(t, brain.ImportFile{Path: "~/src/app/AGENTS.md", Source: brain.SourceInstructions, Text: "- Run make lint.\n"},
		brain.ImportFile{Path: "/etc/passwd", Source: "system", Text: "root:x:0:0"})
	r = b.do(t, admin, "POST", at(projA, "import-cli"), bad)
	require.Equal(t, http.StatusBadRequest, r.status, r.body)
	_, field, msg := errField(r)
	require.Equal(t, "files[1].source", field)
	require.Contains(t, msg, `must be "instructions" or "<cli>-memory"`)
	require.Equal(t, 0, count(`SELECT count(*) FROM memories WHERE source LIKE 'import-cli:~/src/app/AGENTS.md'`), "nothing of a refused batch is stored")

	// Two files of 700 KB (mostly blank lines, which JSON doubles): more than the routes' usual
	// 1 MiB, within an import's limit.
	big := func(path string) brain.ImportFile {
		return brain.ImportFile{Path: path, Source: brain.SourceInstructions, Text: "Big file " + path + ".\n" + strings.Repeat("\n", 700_000)}
	}
	r = b.do(t, admin, "POST", at(projA, "import-cli"), importBody(t, big("a.md"), big("b.md")))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.EqualValues(t, 2, r.body["added"])
}
