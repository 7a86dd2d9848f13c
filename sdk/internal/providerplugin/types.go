package providerplugin

import (
	"context"
	"io/fs"
	"time"
)

// Info mirrors provider.Info; see there for the contract of each field.
type Info struct {
	Name        string
	Version     string
	Description string
	Executable  string
}

// MCPServer mirrors provider.MCPServer.
type MCPServer struct {
	Name  string
	URL   string
	Token string
}

// Spawn mirrors provider.Spawn.
type Spawn struct {
	CLI        string
	Executable string
	Args       []string
	Dir        string
	Env        map[string]string
	Banner     string
	MCP        *MCPServer
	Project    string
	ScratchDir string
}

// File mirrors provider.File.
type File struct {
	Path            string
	Mode            fs.FileMode
	Content         []byte
	LinkTarget      string
	CreateTargetDir bool
}

// Plan mirrors provider.Plan.
type Plan struct {
	Args     []string
	SetEnv   map[string]string
	UnsetEnv []string
	Files    []File
	Cleanup  []string
	State    []byte
}

// Ended mirrors provider.Ended.
type Ended struct {
	Spawn     Spawn
	State     []byte
	ExitCode  int
	StartedAt time.Time
	Duration  time.Duration
}

// Session mirrors provider.Session.
type Session struct {
	ID         string
	Transcript string
}

// Provider mirrors provider.Provider over this package's types.
type Provider interface {
	Describe(ctx context.Context) (Info, error)
	Prepare(ctx context.Context, s Spawn) (Plan, error)
	Finish(ctx context.Context, e Ended) (Session, error)
	Health(ctx context.Context) error
}
