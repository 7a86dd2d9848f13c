package mcpserver

import (
	"context"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
)

// statelessVersion is the first protocol version without sessions (SEP-2575). The SDK serves
// it only from a stateless handler.
const statelessVersion = "2026-07-28"

// sessionIdleTimeout closes stateful sessions whose client went away without DELETE.
const sessionIdleTimeout = 30 * time.Minute

// Handler serves MCP over streamable HTTP (JSON responses) behind bearer authentication.
//
// A request without a valid `Authorization: Bearer` token (sent once) gets 401 with
// `WWW-Authenticate: Bearer realm="memhost"` and a JSON error body; every other refusal
// before MCP (a session of another token, an oversized body) has the same JSON shape. Requests at protocol
// 2026-07-28 or later (by their Mcp-Protocol-Version header) are served statelessly; older
// clients get a session from initialize, bound to the token that opened it.
func (s *Server) Handler(door *access.Door) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s.http }
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		JSONResponse: true, Logger: s.log, SessionTimeout: sessionIdleTimeout, MaxRequestBodyBytes: maxBodyBytes,
	})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, Logger: s.log, MaxRequestBodyBytes: maxBodyBytes,
	})
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= statelessVersion {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	// The SDK's middleware carries the principal to tool handlers (RequestExtra.TokenInfo)
	// and pins each stateful session to the token (UserID) that created it.
	withTokenInfo := sdkauth.RequireBearerToken(tokenInfoFromContext, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	return jsonErrors(s.log, s.bearer(door, withTokenInfo(route)))
}

type principalCtxKey struct{}

// tokenInfoFromContext hands the principal that bearer authenticated to the SDK.
func tokenInfoFromContext(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	p, ok := ctx.Value(principalCtxKey{}).(auth.Principal)
	if !ok {
		return nil, sdkauth.ErrInvalidToken
	}
	scopes := make([]string, len(p.Scopes))
	for i, sc := range p.Scopes {
		scopes[i] = string(sc)
	}
	return &sdkauth.TokenInfo{
		Scopes: scopes,
		UserID: p.TokenID.String(),
		Extra:  map[string]any{principalKey: p},
	}, nil
}

// bearer authenticates the request's bearer token through the front door and puts the
// principal in its context.
func (s *Server) bearer(door *access.Door, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := door.AuthenticateRequest(r)
		if err != nil {
			prob := access.Classify(err)
			if prob.Internal || prob.RetryAfter > 0 {
				s.log.WarnContext(r.Context(), "mcp: authenticate bearer token", "err", err)
			}
			prob.WriteHTTP(w)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalCtxKey{}, p)))
	})
}

// Close ends every open MCP session of the HTTP surface: a client that went away without
// DELETE would otherwise keep its session (and its goroutines) until the idle timeout. The
// host calls it at shutdown, after the listener stops accepting requests.
func (s *Server) Close() {
	for ss := range s.http.Sessions() {
		_ = ss.Close()
	}
}
