// Command memhost-provider-codex teaches `memhost run codex` how to start
// Codex with memhost's project brain and MCP server (see package codex and
// README.md). memhost starts it; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/provider-codex/codex"
	"github.com/memhost/memhost/sdk/provider"
)

func main() {
	if err := provider.Serve(codex.New()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
