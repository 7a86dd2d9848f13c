package plugintest

import "testing"

// Check is one conformance subtest of a kind's kit, run against the K the kit builds (what
// Describe said, the implementation under test). Run takes testing.TB so that the kit's own
// tests can run it against a recorder.
type Check[K any] struct {
	Name string
	Run  func(t testing.TB, k K)
}

// RunChecks runs every check against k, each as a parallel subtest of t: the implementation
// under test must be safe for concurrent use, as the host requires.
func RunChecks[K any](t *testing.T, k K, checks []Check[K]) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Run(t, k)
		})
	}
}
