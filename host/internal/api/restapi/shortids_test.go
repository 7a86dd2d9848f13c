package restapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestShortIDsOfAWriteBurstResolve: memories and proposals written in the same second share
// the first 8 digits of their ids (UUIDv7's clock), which is all the banner used to show, so
// every memory_get and inbox decision by it was ambiguous. Short ids are the ids' last digits:
// the banner shows each memory by a different one, and each resolves, on the memory and the
// proposal routes alike, to its own record.
func TestShortIDsOfAWriteBurstResolve(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	admin := b.token(t, "", auth.ScopeAdmin)
	want := map[string]string{} // id -> text
	for i := range 40 {
		text := fmt.Sprintf("Service %d of the burst listens on port %d.", i, 8000+i)
		r := b.do(t, agent, "POST", "/api/v1/memories", fmt.Sprintf(`{"text":%q}`, text))
		require.Equal(t, http.StatusCreated, r.status, r.body)
		want[r.body["id"].(string)] = text
	}
	r := b.do(t, agent, "GET", at(projA, "banner")+"?budget=8000", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	shown := regexp.MustCompile(`(?m)^- \[([0-9a-f]+)\]`).FindAllStringSubmatch(r.body["text"].(string), -1)
	require.Len(t, shown, len(want), "every fact of the burst is in the banner")
	seen := map[string]bool{}
	for _, m := range shown {
		short := m[1]
		require.False(t, seen[short], "short id %s shown twice", short)
		seen[short] = true
		got := b.do(t, agent, "GET", "/api/v1/memories/"+short, "")
		require.Equal(t, http.StatusOK, got.status, "%s: %v", short, got.body)
		require.Equal(t, want[got.body["id"].(string)], got.body["text"], short)
	}

	var proposals []string
	for i := range 10 {
		r := b.do(t, agent, "POST", at(projA, "proposals"), fmt.Sprintf(`{"layer":"plan","text":"Step %d first."}`, i))
		require.Equal(t, http.StatusCreated, r.status, r.body)
		proposals = append(proposals, r.body["proposal"].(map[string]any)["id"].(string))
	}
	// The clock digits change every 65.5 s, so a burst shares its first 8 digits, or at worst
	// falls in two groups that do.
	byPrefix := map[string]int{}
	shared := ""
	for _, id := range proposals {
		if byPrefix[id[:8]]++; byPrefix[id[:8]] > 1 {
			shared = id[:8]
		}
	}
	require.NotEmpty(t, shared)
	for _, id := range proposals {
		short := id[len(id)-8:]
		r := b.do(t, admin, "GET", at(projA, "proposals/"+short), "")
		require.Equal(t, http.StatusOK, r.status, "%s: %v", short, r.body)
		require.Equal(t, id, r.body["id"])
	}
	r = b.do(t, admin, "POST", at(projA, "proposals/"+proposals[3][len(proposals[3])-8:]+"/reject"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, proposals[3], r.body["proposal"].(map[string]any)["id"])
	r = b.do(t, admin, "GET", at(projA, "proposals/"+shared), "")
	require.Equal(t, http.StatusBadRequest, r.status, "a shared prefix is ambiguous, and says so: %v", r.body)
}
