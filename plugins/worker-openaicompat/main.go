// Command memhost-worker-openaicompat is a memhost worker plugin that answers
// tasks through any OpenAI-compatible /v1/chat/completions endpoint: ollama,
// LM Studio, vLLM, llama.cpp's server or a cloud API (see package openaicompat
// and docs/plugins.md). The host starts it with the worker's settings in its
// environment; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/memhost/memhost/plugins/worker-openaicompat/openaicompat"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

func main() {
	w := openaicompat.FromEnv(os.Getenv, plugin.Logger("worker-openaicompat"))
	if err := worker.Serve(w); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
