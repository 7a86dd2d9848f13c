package console_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestPagesCarryOnlyTheirOwnInlineCode: a page's inline stylesheet and script are exactly what
// its content security policy allows by hash (a browser would refuse them otherwise), the
// policy allows no other inline code and nothing from elsewhere, and every page says so with
// the other protective headers.
func TestPagesCarryOnlyTheirOwnInlineCode(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	resp, err := c.http.Get(b.srv.URL + "/console/memories" + q(projectA))
	require.NoError(t, err)
	page := readAll(t, resp)
	csp := resp.Header.Get("Content-Security-Policy")
	for _, block := range []*regexp.Regexp{regexp.MustCompile(`(?s)<style>(.*?)</style>`), regexp.MustCompile(`(?s)<script>(.*?)</script>`)} {
		m := block.FindAllStringSubmatch(page, -1)
		require.Len(t, m, 1)
		sum := sha256.Sum256([]byte(m[0][1]))
		require.Contains(t, csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	require.NotContains(t, csp, "unsafe-inline")
	require.Contains(t, csp, "default-src 'none'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotRegexp(t, `<script src=|<link rel="stylesheet"|https?://[a-z]`, page[:min(len(page), 400)], "nothing fetched from anywhere")
	for h, want := range map[string]string{"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "X-Frame-Options": "DENY"} {
		require.Equal(t, want, resp.Header.Get(h), h)
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
