package hostclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/memhost/memhost/host/internal/wire"
)

// Banner fetches project's banner as plain text for the session req names, led by the facts
// relevant to its task when it names one (POST .../banner). A host from before task-scoped
// banners (no such route) gives its query-less banner instead.
func (c *Client) Banner(ctx context.Context, token, project string, req wire.BannerRequest) (string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("encode the banner request: %w", err)
	}
	status, data, err := c.Call(ctx, http.MethodPost, ProjectPath(project, "banner")+"?format=text", token, body)
	if err == nil && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) && !isProjectRefusal(data) {
		q := url.Values{"format": {"text"}, "cli": {req.CLI}}
		status, data, err = c.Call(ctx, http.MethodGet, ProjectPath(project, "banner")+"?"+q.Encode(), token, nil)
	}
	if err == nil && status >= 300 {
		err = AnswerError(status, data)
	}
	if err != nil {
		return "", fmt.Errorf("fetch the banner: %w", err)
	}
	return string(data), nil
}

// isProjectRefusal reports whether a 404 answer is the host's own JSON error (an unknown
// project, say) rather than a route it does not have.
func isProjectRefusal(data []byte) bool {
	var e wire.ErrorBody
	return json.Unmarshal(data, &e) == nil && e.Error.Code != ""
}

// PromptContext asks for the context of a prompt the user submitted in a session.
func (c *Client) PromptContext(ctx context.Context, token, project string, req wire.PromptRequest) (wire.PromptContext, error) {
	var out wire.PromptContext
	if err := c.post(ctx, token, project, "prompt-context", req, &out); err != nil {
		return wire.PromptContext{}, fmt.Errorf("fetch the prompt's context: %w", err)
	}
	return out, nil
}

// EndSession closes a session's record with what its transcript showed.
func (c *Client) EndSession(ctx context.Context, token, project string, e wire.SessionEnd) (wire.SessionEndResult, error) {
	var out wire.SessionEndResult
	if err := c.post(ctx, token, project, "sessions/end", e, &out); err != nil {
		return wire.SessionEndResult{}, fmt.Errorf("record the session: %w", err)
	}
	return out, nil
}

func (c *Client) post(ctx context.Context, token, project, route string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode the request: %w", err)
	}
	return c.Do(ctx, http.MethodPost, ProjectPath(project, route), token, body, out)
}
