package restapi

import (
	"context"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// importBodyBytes bounds an import's body: a batch of brain.MaxImportBatchBytes of text, with
// room for JSON's escapes. An import carries whole files, so it may be larger than the routes'
// usual MaxBodyBytes.
const importBodyBytes = 4 * brain.MaxImportBatchBytes

// registerImportCLI mounts POST /api/v1/projects/{key}/import-cli (admin): `memhost import-cli`
// sends the files it read where the agent CLIs keep their memory, and the host stores them. The
// host never reads a path a client names.
func (a *api) registerImportCLI(admin gin.IRoutes) {
	admin.POST("/projects/:key/import-cli", a.limit(a.Limits.Writes), a.inProject(a.importCLI))
}

func (a *api) importCLI(ctx context.Context, acc memory.Access, c *gin.Context) (any, int, error) {
	var b brain.ImportBatch
	if err := a.decodeWithin(c, &b, max(a.MaxBodyBytes, importBodyBytes)); err != nil {
		return nil, 0, err
	}
	rep, err := a.Brain.ImportCLI(ctx, acc, b)
	return rep, 0, err
}
