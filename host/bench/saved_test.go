package bench

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestASavedRunRendersAsItRan: measurements saved as JSON (memhost-bench -save) render to the
// same report when loaded again (-render), so the report's text can change without a new run.
func TestASavedRunRendersAsItRan(t *testing.T) {
	t.Parallel()
	rep := sampleReport()
	rep.LoadAvg = [2]string{"0.10 0.20 0.30", "0.40 0.50 0.60"}
	path := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, SaveReport(path, rep))
	loaded, err := LoadReport(path)
	require.NoError(t, err)
	require.Equal(t, Render(rep), Render(loaded))

	_, err = LoadReport(filepath.Join(t.TempDir(), "none.json"))
	require.ErrorContains(t, err, "read saved measurements")
}
