package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/access"
	"github.com/memhost/memhost/host/internal/config"
)

// hostTimeout bounds one call to a running host: banner and map upload answer in milliseconds.
const hostTimeout = 10 * time.Second

// errNoHost means no host answers at server.listen; the command falls back to the database.
var errNoHost = errors.New("no host answers")

// hostAPI calls a running host's REST API with a token.
type hostAPI struct {
	base  string
	token string
}

// hostFor returns the running host's API when a token is given (--token or MEMHOST_TOKEN);
// nil means work on the database directly.
func hostFor(cmd *cobra.Command, cfg *config.Config) *hostAPI {
	token, _ := cmd.Flags().GetString("token")
	if token == "" {
		return nil
	}
	return &hostAPI{base: "http://" + cfg.Server.Listen, token: token}
}

func addTokenFlag(c *cobra.Command) {
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "token for a running host (default $MEMHOST_TOKEN); without one, or with no host answering, the database is used directly")
}

// projectPath is the API path of one of project key's routes.
func projectPath(key, route string) string {
	return "/api/v1/projects/" + url.PathEscape(key) + "/" + route
}

// do sends one request and decodes a JSON answer into out (or copies a text answer into out
// when it is a *bytes.Buffer). A host that refuses answers with its error message.
func (h *hostAPI) do(ctx context.Context, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, hostTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return errNoHost
		}
		return fmt.Errorf("call the host at %s: %w", h.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("read the host's answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		var e access.ErrorBody
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("host refused: %s", e.Error.Message)
		}
		return fmt.Errorf("host answered %s", resp.Status)
	}
	if buf, ok := out.(*bytes.Buffer); ok {
		buf.Write(data)
		return nil
	}
	return json.Unmarshal(data, out)
}
