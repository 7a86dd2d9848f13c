package memory

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrefixRange(t *testing.T) {
	t.Parallel()
	lo, hi := prefixRange("0193abcd")
	require.Equal(t, "0193abcd-0000-0000-0000-000000000000", lo.String())
	require.Equal(t, "0193abce-0000-0000-0000-000000000000", hi.String())
	lo, hi = prefixRange("0193abcf")
	require.Equal(t, "0193abd0-0000-0000-0000-000000000000", hi.String())
	_, hi = prefixRange("ffffffff")
	require.Nil(t, hi)
	lo, hi = prefixRange("0193abcd1")
	require.Equal(t, "0193abcd-1000-0000-0000-000000000000", lo.String())
	require.Equal(t, "0193abcd-2000-0000-0000-000000000000", hi.String())
}
