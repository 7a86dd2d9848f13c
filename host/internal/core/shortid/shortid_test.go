package shortid

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestShortIDsOfIDsMadeTogetherDiffer: UUIDv7 ids made in one burst share their leading digits
// (the clock), so a prefix names none of them; their short ids are all different.
func TestShortIDsOfIDsMadeTogetherDiffer(t *testing.T) {
	t.Parallel()
	ids := make([]uuid.UUID, 5000)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7())
	}
	require.Equal(t, ids[0].String()[:8], ids[len(ids)-1].String()[:8], "the burst shares its first 8 digits")
	names := Shorten(ids)
	seen := map[string]bool{}
	for _, id := range ids {
		n := names[id]
		require.GreaterOrEqual(t, len(n), Len)
		require.True(t, strings.HasSuffix(strings.ReplaceAll(id.String(), "-", ""), n))
		require.False(t, seen[n], "short id %s shown twice", n)
		seen[n] = true
	}
}

// TestShortenLengthensOnlyWhereTwoShareASuffix: two ids ending alike get one digit more than
// they share; the others keep Len digits.
func TestShortenLengthensOnlyWhereTwoShareASuffix(t *testing.T) {
	t.Parallel()
	a := uuid.MustParse("01900000-0000-7000-8000-00aa12345678")
	b := uuid.MustParse("01900000-0000-7000-8000-00bb12345678")
	c := uuid.MustParse("01900000-0000-7000-8000-0000cafe0001")
	names := Shorten([]uuid.UUID{a, b, c, a})
	require.Equal(t, "a12345678", names[a])
	require.Equal(t, "b12345678", names[b])
	require.Equal(t, "cafe0001", names[c])
	require.Equal(t, "12345678", Of(a))
}

func TestParseAndPick(t *testing.T) {
	t.Parallel()
	a := uuid.MustParse("01900000-0000-7000-8000-00aa12345678")
	b := uuid.MustParse("01900001-0000-7000-8000-00bb87654321")
	r, err := Parse("memory", " 12345678 ")
	require.NoError(t, err)
	id, n := r.Pick([]uuid.UUID{a, b})
	require.Equal(t, 1, n)
	require.Equal(t, a, id)

	// A prefix printed by an older release still resolves when no suffix matches.
	r, err = Parse("memory", "01900001")
	require.NoError(t, err)
	id, n = r.Pick([]uuid.UUID{a, b})
	require.Equal(t, 1, n)
	require.Equal(t, b, id)

	r, err = Parse("memory", "0190000")
	require.Error(t, err, "7 digits are too few")
	require.Contains(t, err.Error(), "last 8 or more hex digits")
	_, err = Parse("memory", "not-an-id\x1b[2K")
	require.Error(t, err)
	require.NotContains(t, err.Error(), "\x1b", "a bad ref is quoted, never printed raw")

	r, err = Parse("token", b.String())
	require.NoError(t, err)
	require.True(t, r.Whole())
	require.Equal(t, b, r.ID)
}
