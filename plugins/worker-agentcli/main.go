// Command memhost-worker-agentcli is the worker plugin every install has: it
// answers the host's LLM text tasks by running an agent CLI the user already
// has and is logged in to (Claude Code, Gemini CLI or Codex) headless, one
// process group per task. See package agentcli for what it runs and how.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/memhost/memhost/plugins/worker-agentcli/agentcli"
	"github.com/memhost/memhost/sdk/worker"
)

func main() {
	w := agentcli.FromEnv(os.Environ())
	// A signal ends the plugin without Serve returning: every CLI still
	// running goes down with it rather than outlive it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		s := <-sig
		w.Close()
		fmt.Fprintf(os.Stderr, "memhost-worker-agentcli: %s: stopped\n", s)
		os.Exit(1)
	}()
	err := worker.Serve(w)
	w.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
