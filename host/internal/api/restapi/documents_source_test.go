package restapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestSetDocumentNamesItsSource: a client may name where a goal or plan comes from (the memhost
// CLI says cli), shown as who updated it; the default is rest, and a source that breaks the
// one-line rules is refused, naming the field, with nothing set.
func TestSetDocumentNamesItsSource(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	admin := b.token(t, "", auth.ScopeAdmin)

	r := b.do(t, admin, "PUT", at(projA, "goal"), `{"text":"Ship it."}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "rest", r.body["updated_by"])
	r = b.do(t, admin, "PUT", at(projA, "plan"), `{"text":"1. Ship.","source":"cli"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "cli", r.body["updated_by"])

	r = b.do(t, admin, "PUT", at(projA, "goal"), `{"text":"Ship it again.","source":"cli\nforged line"}`)
	require.Equal(t, http.StatusBadRequest, r.status, r.body)
	_, field, _ := errField(r)
	require.Equal(t, "source", field)
	r = b.do(t, admin, "GET", at(projA, "goal"), "")
	require.Equal(t, "Ship it.", r.body["text"], "a refused write changes nothing")
}
