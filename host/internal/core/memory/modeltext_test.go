package memory_test

import (
	"strings"
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"
)

// TestModelTextHoldsAWorkersWordsToTheWriteRules: a model's answer leaves ModelText and
// ModelLine as an agent's write would be stored: secrets redacted, no control or bidi
// character, within its limit, something visible; what a model cannot be asked to fix is
// taken out, what still breaks a rule is refused naming the field.
func TestModelTextHoldsAWorkersWordsToTheWriteRules(t *testing.T) {
	t.Parallel()
	b := setupInputs(t)
	tok := fakeGitHubToken()
	awsID, awsSecret := "AKIA"+strings.Repeat("Q", 8)+"2345ABCD", "wJalrXUtnF"+"EMI/K7MDENG/bPxRfiCY"+"0123456789"
	summary := "Rotated the deploy token " + tok + "; AWS: " + awsID + " / " + awsSecret +
		"\r\nDB is postgres://app:" + "Hunter2pw" + "@db.internal/app \x1b[2K\u202egnihton\u202c done."
	got, err := b.svc.ModelText("summary", summary, 0)
	require.NoError(t, err)
	for _, leak := range []string{tok, awsID, awsSecret, "Hunter2pw", "\x1b", "\u202e", "\u202c", "\r"} {
		require.NotContains(t, got, leak)
	}
	require.Contains(t, got, "[REDACTED:github-pat]")
	require.Contains(t, got, "postgres://app:[REDACTED:url-password]@db.internal/app")
	require.Contains(t, got, "\nDB is", "line breaks stay in multi-line text")

	line, err := b.svc.ModelLine("evidence", "line 1 says\n8080,\tline 2\u2028says \u200b9090 "+tok, 500)
	require.NoError(t, err)
	require.Equal(t, "line 1 says 8080, line 2 says 9090 [REDACTED:github-pat]", line)

	for _, tc := range []struct{ field, text, want string }{
		{"summary", "\u202e\u200b \x07", "must not be empty or only invisible characters"},
		{"summary", strings.Repeat("x", 65), "is 65 bytes; the limit is 64 bytes"},
	} {
		_, err := b.svc.ModelText(tc.field, tc.text, 64)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, tc.field, fe.Field)
		require.Contains(t, fe.Error(), tc.want)
	}
	_, err = b.svc.ModelLine("reason", strings.Repeat("y", 301), 300)
	require.ErrorContains(t, err, "reason: is 301 bytes; the limit is 300 bytes")
}
