package e2e

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeSecret is n characters of alphabet from a seeded generator: credential-shaped, generated
// at run time, never a real credential.
func fakeSecret(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestSecretsBesideTheirNamesAreRedactedOnStore: the secret an agent pastes next to what names
// it (an AWS key id, "secret key ... is", "token:") never reaches the stored memory or its
// history, through REST and MCP alike.
func TestSecretsBesideTheirNamesAreRedactedOnStore(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	project := "github.com/acme/redact"
	token := h.token("--name", "e2e-redact", "--project", project)
	r := rand.New(rand.NewPCG(21, 8))
	const (
		b64   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	)
	awsSecret, prodSecret := fakeSecret(r, b64, 39)+"7", fakeSecret(r, b64, 39)+"Q"
	chosen := "Lantern" + fakeSecret(r, "0123456789", 3) + "!ab"
	texts := map[string]string{
		awsSecret:  "AWS: AKIA" + fakeSecret(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) + " / " + awsSecret,
		prodSecret: "the secret key for prod is " + prodSecret,
		chosen:     "deploy token: " + chosen,
	}
	ctx := context.Background()
	for secret, text := range texts {
		body, err := json.Marshal(map[string]string{"text": text, "project": project})
		require.NoError(t, err)
		status, out, err := h.rest(ctx, token, "POST", "/api/v1/memories", string(body))
		require.NoError(t, err)
		require.Equal(t, 201, status, out)
		raw, err := json.Marshal(out)
		require.NoError(t, err)
		require.NotContains(t, string(raw), secret)
		require.Contains(t, string(raw), "[REDACTED:")
		id, _ := out["id"].(string)
		status, hist, err := h.rest(ctx, token, "GET", "/api/v1/memories/"+id+"/history?project="+project, "")
		require.NoError(t, err)
		require.Equal(t, 200, status, hist)
		raw, err = json.Marshal(hist)
		require.NoError(t, err)
		require.NotContains(t, string(raw), secret)
	}

	cs := connect(t, h, token)
	mcpSecret := fakeSecret(r, alnum, 23) + "9"
	res := callTool[map[string]any](t, cs, "memory_store", map[string]any{"text": "the OAuth client secret is " + mcpSecret})
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	require.NotContains(t, string(raw), mcpSecret)
	require.True(t, strings.Contains(string(raw), "[REDACTED:secret-phrase]"), string(raw))
}
