package openaicompat

import (
	"testing"

	"github.com/memhost/memhost/plugins/worker-openaicompat/internal/fakeopenai"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

// TestConformance runs the SDK's kit on the worker, directly and over
// in-process gRPC, against runtimes that enforce the schema, that need the
// fallbacks, and that bury the JSON in prose or a fence.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, mode := range []fakeopenai.Mode{fakeopenai.JSONSchema, fakeopenai.NoJSONSchema, fakeopenai.NoResponseFormat, fakeopenai.Prose, fakeopenai.Fenced} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			_, w, _ := start(t, fakeopenai.Options{Mode: mode})
			workertest.Exercise(t, w)
			workertest.Exercise(t, workertest.Serve(t, w))
		})
	}
}
