package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/daemon/server"
)

// The project brain's operator commands (goal, plan, inbox, conflicts, map, health, banner,
// import-cli) go through the running host, as every client does (hostclient.go). Only when no
// host answers do they open a core of their own on the database (seconds: migrations, the
// embedder's plugin, the lexical index), acting with the admin grant as "cli:<user>", and say
// so on stderr.

// addProjectFlag adds --project to a command.
func addProjectFlag(c *cobra.Command) {
	c.Flags().String("project", "", "project key (default: the project of the current directory, as memhost project key prints it)")
}

// projectKey is --project, else the project of dir (the current directory when "").
func projectKey(cmd *cobra.Command, dir string) (string, error) {
	raw, _ := cmd.Flags().GetString("project")
	if raw != "" {
		key, err := access.CleanKey("--project", raw)
		if err != nil {
			return "", err
		}
		return key, nil
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current directory: %w", err)
		}
		dir = wd
	}
	if access.HoldsHome(dir) {
		// "/" or the home directory would be one project for every session started there.
		return "", fmt.Errorf("%s is the root or the home directory (or above it), which holds many projects, not one: "+
			"run memhost in the project's directory, or pass --project KEY (`memhost project key` prints a checkout's key)", printable(dir))
	}
	id, err := project.Resolve(dir)
	if err != nil {
		return "", fmt.Errorf("resolve the project of %s (pass --project KEY): %w", dir, err)
	}
	return id.Key, nil
}

// operator is the access of an operator command on project key.
func operator(key string) memory.Access {
	return memory.Access{Project: key, Admin: true, Actor: operatorName()}
}

// brainFor is project key's brain for one command: the running host's when one answers, else
// a core on the database. closeFn releases what it opened.
func brainFor(cmd *cobra.Command, key string) (b brainOps, closeFn func(), err error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	if h, closeHost := hostFor(cmd, cfg); h != nil {
		err := h.reachable(cmd.Context())
		if err == nil {
			return hostBrain{h: h, key: key}, closeHost, nil
		}
		closeHost()
		if !errors.Is(err, errNoHost) {
			return nil, nil, err // a host that does not answer in time is not missing: no second writer
		}
		noHost(cmd, cfg)
	}
	local, closeFn, err := openBrain(cmd)
	if err != nil {
		return nil, nil, err
	}
	return localBrain{b: local, acc: operator(key)}, closeFn, nil
}

// noHost says, once, that no host answers and the command works on the database directly.
func noHost(cmd *cobra.Command, cfg *config.Config) {
	fmt.Fprintf(cmd.ErrOrStderr(), "memhost: no host answers on %s: working on the database directly (start one with memhost up)\n", dialable(cfg.Server.Listen))
}

// openBrain opens a core on the configured database for one command; close releases it
// (plugins are stopped).
func openBrain(cmd *cobra.Command) (b *brain.Service, closeFn func(), err error) {
	cfg, err := loadConfig(cmd, config.RequireDatabase, server.RefuseSecrets())
	if err != nil {
		return nil, nil, err
	}
	// Boot chatter (migrations, embedder, index) would bury the command's output; problems
	// still show.
	log := quietLogger(cmd.ErrOrStderr(), cfg)
	quiet := *cfg // the plugins' log follows log.level: keep their start and stop lines out too
	if !strings.EqualFold(quiet.Log.Level, "error") {
		quiet.Log.Level = "warn"
	}
	core, err := server.Open(cmd.Context(), &quiet, log)
	if err != nil {
		return nil, nil, err
	}
	return core.Brain, func() { core.Close(cmd.Context()) }, nil
}

func quietLogger(w io.Writer, cfg *config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	if strings.EqualFold(cfg.Log.Level, "error") {
		opts.Level = slog.LevelError
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// userError shows an error from the brain as a user should read it: through the front
// door's mapping, so no SQL or internal detail is printed.
func userError(err error) error {
	if err == nil {
		return nil
	}
	p := access.Classify(err)
	if p.Internal {
		return err // an operator's own machine: the whole error helps more than a reference
	}
	return p
}
