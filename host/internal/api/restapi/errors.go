package restapi

import (
	"log/slog"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/api/access"
)

// fail answers with err through the front door's one mapping. Unexpected errors are logged in
// full under a reference and reported generically, so SQL and internals never reach a client.
func fail(c *gin.Context, log *slog.Logger, err error) {
	p := access.Classify(err)
	if p.Internal {
		p.Ref = access.NewRef()
		log.Error("request failed", "method", c.Request.Method, "path", c.FullPath(), "ref", p.Ref, "err", err)
	}
	p.WriteHTTP(c.Writer)
	c.Abort()
}
