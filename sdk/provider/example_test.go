package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// toy serves a made-up CLI that reads its instructions from
// $TOY_HOME/INSTRUCTIONS.md and its MCP servers from $TOY_HOME/mcp.json: a
// scratch TOY_HOME mirrors the user's and replaces those two files.
type toy struct{}

var _ provider.Provider = toy{}

func (toy) Describe(context.Context) (provider.Info, error) {
	return provider.Info{Name: "toy", Version: "1.0.0", Description: "the toy CLI", Executable: "toy"}, nil
}

func (toy) Prepare(_ context.Context, s provider.Spawn) (provider.Plan, error) {
	userHome := s.Env["TOY_HOME"]
	if userHome == "" {
		userHome = filepath.Join(s.Env["HOME"], ".toy")
	}
	// Everything of the user's, linked; the two files written below are not.
	files, err := provider.Mirror{From: userHome, To: "home", Skip: []string{"INSTRUCTIONS.md", "mcp.json"}}.Files()
	if err != nil {
		return provider.Plan{}, err
	}
	// The user's own instructions first, the banner after them.
	instructions, err := os.ReadFile(filepath.Join(userHome, "INSTRUCTIONS.md"))
	if err != nil && !os.IsNotExist(err) {
		return provider.Plan{}, err
	}
	files = append(files, provider.File{Path: "home/INSTRUCTIONS.md", Mode: 0o644, Content: append(instructions, s.Banner...)})
	if s.MCP != nil {
		mcp := fmt.Sprintf(`{"%s": {"url": %q, "token": %q}}`, s.MCP.Name, s.MCP.URL, s.MCP.Token)
		files = append(files, provider.File{Path: "home/mcp.json", Mode: 0o600, Content: []byte(mcp)})
	}
	return provider.Plan{
		Args:   s.Args,
		SetEnv: map[string]string{"TOY_HOME": filepath.Join(s.ScratchDir, "home")},
		Files:  files,
		// The banner is in INSTRUCTIONS.md: a hook memhost connect added stands down.
		DeliversBanner: s.Banner != "",
	}, nil
}

func (toy) Finish(context.Context, provider.Ended) (provider.Session, error) {
	return provider.Session{}, nil
}

func (toy) Health(context.Context) error { return nil }

// A plugin's main is a few lines; Serve returns only when memhost shuts the
// plugin down (nil) or when it cannot serve (run by hand, for instance), so
// this example is compiled but not run.
func ExampleServe() {
	if err := provider.Serve(toy{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Plugin authors test through the real gRPC wire with the harness and run
// the conformance kit in their own _test.go files.
func Example_conformance() {
	conformance := func(t *testing.T) {
		providertest.Exercise(t, toy{})
		providertest.Exercise(t, providertest.Serve(t, toy{}))
	}
	_ = conformance
}

func TestToyPassesTheKit(t *testing.T) {
	t.Parallel()
	providertest.Exercise(t, providertest.Serve(t, toy{}))
}
