// Command oldprovider is a provider plugin as built before the Connect and Task RPCs: it serves
// Describe, Prepare, Finish and Health only, so memhost connect must refuse it clearly and
// memhost run knows no task. Tests install it
// as memhost-provider-<name>.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhost/memhost/sdk/provider"
)

type old struct{ name string }

func (o old) Describe(context.Context) (provider.Info, error) {
	return provider.Info{Name: o.name, Version: "0.9.0", Description: "a provider without Connect", Executable: o.name}, nil
}

func (old) Prepare(_ context.Context, s provider.Spawn) (provider.Plan, error) {
	return provider.Plan{Args: s.Args}, nil
}

func (old) Finish(context.Context, provider.Ended) (provider.Session, error) {
	return provider.Session{}, nil
}

func (old) Health(context.Context) error { return nil }

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "memhost-provider-")
	if err := provider.Serve(old{name: name}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
