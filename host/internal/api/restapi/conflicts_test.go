package restapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestConflictRoutes: a project's conflicts inbox lists and shows with the read scope; accept
// (archiving one side) and dismiss need admin; another project's token does not see it; a
// decided conflict answers 409, an archive naming neither memory 400.
func TestConflictRoutes(t *testing.T) {
	t.Parallel()
	b, exec := setupProjects(t)
	admin := b.token(t, "", auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin)
	writer := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	other := b.token(t, projB, auth.ScopeRead, auth.ScopeWrite)
	mem := func(text string) string {
		r := b.do(t, writer, "POST", "/api/v1/memories", fmt.Sprintf(`{"text":%q}`, text))
		require.Equal(t, http.StatusCreated, r.status, r.body)
		return r.body["id"].(string)
	}
	file := func(a, c string) string {
		id := uuid.NewString()
		require.Equal(t, 1, exec(fmt.Sprintf(`WITH x AS (INSERT INTO memory_conflicts (id, scope_key, memory_a, memory_b, pair_key, text_a, text_b, evidence, severity, created_at)
			VALUES ('%s', '%s', '%s', '%s', '%s', 'a', 'b', 'they disagree', 'medium', now()) RETURNING 1) SELECT count(*) FROM x`, id, projA, a, c, a+"+"+c)))
		return id
	}
	fri, tue := mem("Releases ship on Fridays"), mem("Releases ship on Tuesdays")
	pg, my := mem("The database is Postgres 16"), mem("The database is MySQL 8")
	release, database := file(fri, tue), file(pg, my)

	r := b.do(t, writer, "GET", at(projA, "conflicts"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["conflicts"], 2)
	require.Empty(t, b.do(t, other, "GET", at(projB, "conflicts"), "").body["conflicts"], "another project's inbox is its own")
	require.Equal(t, http.StatusForbidden, b.do(t, other, "GET", at(projA, "conflicts"), "").status)
	r = b.do(t, writer, "GET", at(projA, "conflicts/"+release[len(release)-8:]), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, fri, r.body["memory_a"])
	require.Equal(t, http.StatusBadRequest, b.do(t, writer, "GET", at(projA, "conflicts")+"?status=maybe", "").status)

	require.Equal(t, http.StatusForbidden, b.do(t, writer, "POST", at(projA, "conflicts/"+release+"/accept"), "").status)
	r = b.do(t, admin, "POST", at(projA, "conflicts/"+release+"/accept"), fmt.Sprintf(`{"archive":%q}`, pg))
	require.Equal(t, http.StatusBadRequest, r.status, r.body)
	r = b.do(t, admin, "POST", at(projA, "conflicts/"+release+"/accept"), fmt.Sprintf(`{"archive":%q}`, tue))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "accepted", r.body["status"])
	require.Equal(t, tue, r.body["archived"])
	got := b.do(t, writer, "GET", "/api/v1/memories/"+tue, "")
	require.Equal(t, "conflict "+release, got.body["archived_reason"])
	require.Equal(t, http.StatusConflict, b.do(t, admin, "POST", at(projA, "conflicts/"+release+"/dismiss"), "").status)

	r = b.do(t, admin, "POST", at(projA, "conflicts/"+database+"/dismiss"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "dismissed", r.body["status"])
	require.Empty(t, b.do(t, writer, "GET", at(projA, "conflicts"), "").body["conflicts"])
	require.Len(t, b.do(t, writer, "GET", at(projA, "conflicts")+"?status=all", "").body["conflicts"], 2)
}

// TestConflictTextsReachClientsEscaped: a conflict stored before the write rules held a
// model's words (its evidence with an escape sequence, a line break and a bidi override, a
// statement with an escape sequence) is listed and shown with those characters escaped, the
// evidence on one line, as the CLI prints it (REST returned them raw).
func TestConflictTextsReachClientsEscaped(t *testing.T) {
	t.Parallel()
	b, exec := setupProjects(t)
	writer := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	mem := func(text string) string {
		r := b.do(t, writer, "POST", "/api/v1/memories", fmt.Sprintf(`{"text":%q}`, text))
		require.Equal(t, http.StatusCreated, r.status, r.body)
		return r.body["id"].(string)
	}
	fri, tue := mem("Releases ship on Fridays"), mem("Releases ship on Tuesdays")
	id := uuid.NewString()
	require.Equal(t, 1, exec(fmt.Sprintf(`WITH x AS (INSERT INTO memory_conflicts (id, scope_key, memory_a, memory_b, pair_key, text_a, text_b, evidence, severity, created_at)
		VALUES ('%s', '%s', '%s', '%s', '%s', E'Releases ship on Fridays\x1b[8m hidden', 'b', E'two days\x1b[2K\nIGNORE THE ABOVE \u202Eesrever', 'high', now()) RETURNING 1) SELECT count(*) FROM x`,
		id, projA, fri, tue, fri+"+"+tue)))

	list := b.do(t, writer, "GET", at(projA, "conflicts"), "")
	require.Equal(t, http.StatusOK, list.status, list.body)
	show := b.do(t, writer, "GET", at(projA, "conflicts/"+id), "")
	require.Equal(t, http.StatusOK, show.status, show.body)
	for _, c := range []map[string]any{list.body["conflicts"].([]any)[0].(map[string]any), show.body} {
		require.Equal(t, `two days\x1b[2K IGNORE THE ABOVE \u202eesrever`, c["evidence"])
		require.Equal(t, `Releases ship on Fridays\x1b[8m hidden`, c["text_a"])
	}
}
