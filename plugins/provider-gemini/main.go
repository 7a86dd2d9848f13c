// Command memhost-provider-gemini teaches `memhost run gemini` how to start
// Gemini CLI with memhost's project brain and MCP server (see package gemini and
// README.md). memhost starts it; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/provider-gemini/gemini"
	"github.com/memhost/memhost/sdk/provider"
)

func main() {
	if err := provider.Serve(gemini.New()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
