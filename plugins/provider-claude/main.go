// Command memhost-provider-claude teaches `memhost run claude` how to start
// Claude Code with memhost's project brain and MCP server (see package claude
// and README.md). memhost starts it; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/provider-claude/claude"
	"github.com/memhost/memhost/sdk/provider"
)

func main() {
	if err := provider.Serve(claude.New()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
