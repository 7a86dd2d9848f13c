// Package e2econsole proves the operator console in a real browser. Its tests (build tag
// e2econsole, run by `make e2e-console`, never by `make test`) start a real `memhost serve` on
// a fresh schema of the test PostgreSQL, sign a headless Chromium (the distribution's package)
// in through `memhost console`, and drive it with chromedp: every screen loads with no console
// error and no failed request and passes axe-core's serious and critical checks; writes from
// another origin are refused; a session bound to one project reaches no other; the inboxes'
// decisions, an unmerge and a restore are seen through a real MCP client; a memory stored
// through MCP reaches the live feed within a second; the banner preview is the banner
// `memhost run` hands the CLI, byte for byte. With MEMHOST_CONSOLE_SCREENSHOTS set to a
// folder the tests write each screen there (docs/console/*.png); with MEMHOST_CONSOLE_BENCH
// set they time the first page and the search page at 100K memories (docs/benchmarks.md).
package e2econsole
