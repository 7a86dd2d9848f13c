// Package e2ecli proves memhost on the real coding-agent CLIs, offline. Its tests (build tag
// e2ecli, run by `make e2e-cli`, never by `make test`) install pinned versions of Claude Code,
// Codex and Gemini CLI from npm into a cache shared between runs, point each at a stand-in
// model endpoint from host/internal/testkit/standin and at a real `memhost serve` over MCP, run it
// headless in a throwaway home, and read what reached the model: the injected context, the
// tools offered under their memhost names, the tool call's round trip through memhost.
//
// Every CLI run is bounded by a timeout, sees no inherited environment, sends anything it
// tries to fetch from outside loopback to a recording proxy that refuses it (a test fails on
// any such attempt), and may leave no process behind. docs/e2e-cli.md records what each CLI
// needed; the provider plugins are built from it.
package e2ecli
