package plugintest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/plugintest"
)

// recorder collects what a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestRequireNoGlueInAPI(t *testing.T) {
	t.Parallel()
	r := &recorder{TB: t}
	plugintest.RequireNoGlueInAPI(r, "testdata/leaky")
	require.Len(t, r.errs, 2, "%q", r.errs)
	require.Contains(t, r.errs[0], "exported API mentions grpc.ClientConn")
	require.Contains(t, r.errs[1], "exported API mentions grpc.Server")
}
