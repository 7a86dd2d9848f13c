package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/daemon/server"
)

// The operator's commands reach the running host through its REST API (hostclient), as every
// client does: the host holds the index, the plugins and the workers, and a second core beside
// it would take seconds to open and be a second writer. The token is --token when given; else
// the operator's configuration is the credential, as for `memhost token create`: an admin
// token for "cli:<user>" is minted through its database (package auth's token store, as
// `memhost run` mints session tokens) and kept in the user's cache for the next commands.

// hostTimeout bounds one operator call to a running host: a map upload takes longer than a
// CLI's banner.
const hostTimeout = 10 * time.Second

// operatorTokenTTL is the life of the operator's minted token: short, since it is an admin
// token kept in a file; it is renewed once half of it has passed.
const operatorTokenTTL = time.Hour

// errNoHost means no host answers at server.listen; the command falls back to the database.
var errNoHost = hostclient.ErrUnreachable

// hostAPI calls a running host's REST API, through the client side's one client, with the
// operator's token.
type hostAPI struct {
	client *hostclient.Client
	auth   *operatorAuth
}

// operatorAuth holds the operator's token for one command: granted at the first call, and
// minted again once when the host refuses a kept one.
type operatorAuth struct {
	tokens spawn.Tokens // the given --token (spawn.StaticToken), or minted (spawn.MintTokens)
	close  func()

	mu      sync.Mutex
	token   string
	release func(context.Context) error
}

// hostFor returns the running host's API for an operator command: with --token (default
// $MEMHOST_TOKEN) when one is given, else with the operator's own token minted through
// database.url; nil when there is neither. closeFn releases what minting opened.
func hostFor(cmd *cobra.Command, cfg *config.Config) (h *hostAPI, closeFn func()) {
	token, _ := cmd.Flags().GetString("token")
	a := &operatorAuth{close: func() {}}
	switch {
	case token != "":
		a.tokens = spawn.StaticToken(token)
	case cfg.Database.URL != "":
		open, closeStore := tokenStore(cfg)
		mint := spawn.MintTokens{TTL: operatorTokenTTL, Store: func(ctx context.Context) (spawn.Minter, error) {
			tokens, err := open(ctx)
			if err != nil {
				return nil, err
			}
			return operatorMinter{tokens}, nil
		}}
		if cache, err := os.UserCacheDir(); err == nil {
			// One kept token per database: a token is another database's host's stranger.
			sum := sha256.Sum256([]byte(cfg.Database.URL))
			mint.CacheDir = filepath.Join(cache, "memhost", "operator", hex.EncodeToString(sum[:8]))
		}
		a.tokens, a.close = mint, closeStore
	default:
		return nil, func() {}
	}
	h = &hostAPI{client: &hostclient.Client{URL: "http://" + dialable(cfg.Server.Listen), Timeout: hostTimeout}, auth: a}
	return h, a.end
}

func addTokenFlag(c *cobra.Command) {
	c.Flags().String("token", os.Getenv("MEMHOST_TOKEN"), "token for the running host (default $MEMHOST_TOKEN); without one, an admin token for you is minted through database.url")
}

// withTimeout is h with calls bounded by d instead (a maintenance run takes minutes).
func (h *hostAPI) withTimeout(d time.Duration) *hostAPI {
	return &hostAPI{client: &hostclient.Client{URL: h.client.URL, HTTP: h.client.HTTP, Timeout: d}, auth: h.auth}
}

// reachable reports whether a host answers at all (its unauthenticated /healthz): errNoHost
// when none does.
func (h *hostAPI) reachable(ctx context.Context) error {
	_, _, err := h.client.Call(ctx, http.MethodGet, "/healthz", "", nil)
	return err
}

// projectPath is the API path of one of project key's routes.
func projectPath(key, route string) string { return hostclient.ProjectPath(key, route) }

// do sends one request and decodes a JSON answer into out (or copies a text answer into out
// when it is a *bytes.Buffer). A host that refuses answers with its error message.
func (h *hostAPI) do(ctx context.Context, method, path string, body []byte, out any) error {
	return h.auth.with(ctx, func(token string) error {
		return h.client.Do(ctx, method, path, token, body, out)
	})
}

// call sends one request and returns the answer as it came, whatever its status.
func (h *hostAPI) call(ctx context.Context, method, path string, body []byte) (status int, data []byte, err error) {
	err = h.auth.with(ctx, func(token string) error {
		status, data, err = h.client.Call(ctx, method, path, token, body)
		if err == nil && status == http.StatusUnauthorized {
			return hostclient.ErrRefused // with mints a token again, once
		}
		return err
	})
	if status == http.StatusUnauthorized {
		err = nil // the caller reads the refusal from the answer
	}
	return status, data, err
}

// with runs send with the operator's token. A minted token the host refuses (it expired, was
// revoked, or is another database's) is forgotten and minted again, once: a refused request
// was not carried out.
func (a *operatorAuth) with(ctx context.Context, send func(token string) error) error {
	for attempt := 0; ; attempt++ {
		token, err := a.grant(ctx)
		if err != nil {
			return err
		}
		err = send(token)
		f, ok := a.tokens.(spawn.Forgetter)
		if !errors.Is(err, hostclient.ErrRefused) || !ok || attempt > 0 {
			return err
		}
		f.Forget("")
		a.drop(ctx)
	}
}

func (a *operatorAuth) grant(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == "" {
		// The operator's token is for every project (""): one kept token serves every command.
		token, release, err := a.tokens.Grant(ctx, "", "cli")
		if err != nil {
			return "", err
		}
		a.token, a.release = token, release
	}
	return a.token, nil
}

// drop releases the token in hand (revoked if it was the command's own, not kept).
func (a *operatorAuth) drop(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.release != nil {
		_ = a.release(ctx)
	}
	a.token, a.release = "", nil
}

// end releases the token and the database connection minting opened.
func (a *operatorAuth) end() {
	a.drop(context.Background())
	a.close()
}

// operatorMinter mints the operator's own token through the token store: admin, for any
// project, named for the operator ("cli:<user>", the actor history records, as a core of the
// command's own would act). spawn.MintTokens keeps and renews it; the name it proposes, a
// session's, does not apply.
type operatorMinter struct{ tokens *auth.Tokens }

var _ spawn.Minter = operatorMinter{}

func (m operatorMinter) MintSession(ctx context.Context, project, _ string, ttl time.Duration) (string, uuid.UUID, time.Time, error) {
	plain, tok, err := m.tokens.Create(ctx, auth.CreateToken{Name: operatorName(), Scopes: []auth.Scope{auth.ScopeAdmin}, ProjectKey: project, TTL: ttl})
	if err != nil {
		return "", uuid.Nil, time.Time{}, err
	}
	return plain, tok.ID, *tok.ExpiresAt, nil
}

func (m operatorMinter) Revoke(ctx context.Context, id uuid.UUID) error {
	return m.tokens.Revoke(ctx, id)
}

// operatorName is who an operator command acts as: "cli:<user>".
func operatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}

// tokenStore opens the token store on the configured database the first time it is asked for
// (only minting needs it); closeFn releases the connection if one was opened.
func tokenStore(cfg *config.Config) (open func(context.Context) (*auth.Tokens, error), closeFn func()) {
	var (
		once sync.Once
		pool *pgxpool.Pool
		err  error
	)
	open = func(ctx context.Context) (*auth.Tokens, error) {
		once.Do(func() { pool, err = server.Connect(ctx, cfg) })
		if err != nil {
			return nil, err
		}
		return auth.NewTokens(pool), nil
	}
	return open, func() {
		if pool != nil {
			pool.Close()
		}
	}
}
