package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/config"
)

// hostTimeout bounds one operator call to a running host: a map upload takes longer than a
// CLI's banner.
const hostTimeout = 10 * time.Second

// errNoHost means no host answers at server.listen; the command falls back to the database.
var errNoHost = hostclient.ErrUnreachable

// hostAPI calls a running host's REST API with a token, through the client side's one client.
type hostAPI struct {
	client *hostclient.Client
	token  string
}

// hostFor returns the running host's API when a token is given (--token or MEMHOST_TOKEN);
// nil means work on the database directly.
func hostFor(cmd *cobra.Command, cfg *config.Config) *hostAPI {
	token, _ := cmd.Flags().GetString("token")
	if token == "" {
		return nil
	}
	return &hostAPI{client: &hostclient.Client{URL: "http://" + cfg.Server.Listen, Timeout: hostTimeout}, token: token}
}

func addTokenFlag(c *cobra.Command) {
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "token for a running host (default $MEMHOST_TOKEN); without one, or with no host answering, the database is used directly")
}

// projectPath is the API path of one of project key's routes.
func projectPath(key, route string) string { return hostclient.ProjectPath(key, route) }

// do sends one request and decodes a JSON answer into out (or copies a text answer into out
// when it is a *bytes.Buffer). A host that refuses answers with its error message.
func (h *hostAPI) do(ctx context.Context, method, path string, body []byte, out any) error {
	return h.client.Do(ctx, method, path, h.token, body, out)
}
