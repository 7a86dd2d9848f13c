// Command memhost-embedder-openaicompat is memhost's dense embedder plugin:
// it embeds texts through any OpenAI-compatible /v1/embeddings endpoint
// (see package openaicompat and docs/plugins.md). The host starts it with
// one configured embedder's settings in its environment; it is not meant to
// be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/embed-openaicompat/openaicompat"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

func main() {
	e := openaicompat.FromEnv(os.Getenv, plugin.Logger("embedder-openaicompat"))
	if err := embedder.Serve(e); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
