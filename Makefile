# memhost — the two commands of the README are `make run` and `make test`.
# Both provide what they need (PostgreSQL 14-18 + pgvector: the system's, or installed from its
# packages; root only for apt) and run as a normal user.

GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
export GOTOOLCHAIN ?= local

BIN := bin

.PHONY: all build run stop dist uninstall test bench lint fmt generate proto-breaking clean postgres

all: build

## build: the host and every plugin in one go build (scripts/build.sh), stamped with the
## version, commit and date; Go's build cache decides what is stale.
build:
	GO=$(GO) scripts/build.sh $(BIN)

## run: build, provide PostgreSQL + pgvector, start a private cluster under ./.memhost
## (unless MEMHOST_DATABASE_URL is set), apply migrations and serve on 127.0.0.1:7420.
## Ctrl-C stops the host, its plugins and the cluster.
run: build
	GO=$(GO) scripts/run.sh

## stop: stop what make run (or bin/memhost up, or the service) started from this checkout.
stop:
	scripts/stop.sh

## dist: release archives for linux and darwin, amd64 and arm64, with SHA256SUMS, in dist/
## (DIST_TARGETS=linux/amd64 for one).
dist:
	GO=$(GO) scripts/dist.sh dist

## uninstall: remove what memhost created (service, cluster, .memhost, caches) and print what
## it leaves with the commands that remove it (bin/memhost uninstall without --yes only lists).
uninstall:
	scripts/uninstall.sh --yes

## test: gofmt, go vet and go test -race for every module, against a real Postgres.
test:
	GO=$(GO) scripts/test.sh

## e2e-cli: the real Claude Code, Codex and Gemini CLI (pinned, installed from npm into a cache
## under $TMPDIR/memhost-cli-cache) run headless against stand-in model endpoints and a real
## memhost; see docs/e2e-cli.md. Needs node, npm and the npm registry on first run.
.PHONY: e2e-cli
e2e-cli: postgres
	scripts/ensure-node.sh
	cd host && $(GO) test -tags e2ecli -count=1 -timeout 30m ./e2ecli/...

## e2e-console: the operator console in a real headless Chromium (Debian's chromium, installed
## when missing) driven by chromedp against a real memhost serve; axe-core (pinned, from npm,
## cached like the e2e CLIs) checks each screen; see docs/console.md. With
## MEMHOST_CONSOLE_SCREENSHOTS=docs/console it rewrites the screenshots there.
.PHONY: e2e-console
e2e-console: postgres
	scripts/ensure-node.sh
	scripts/ensure-chromium.sh
	cd host && $(GO) test -tags e2econsole -count=1 -timeout 20m ./e2econsole/...

## e2e-console-bench: the console's timings at 100K memories in one project (a cold browser's
## first page, the search page, the live feed's delay); see docs/benchmarks.md, Console.
.PHONY: e2e-console-bench
e2e-console-bench: postgres
	scripts/ensure-node.sh
	scripts/ensure-chromium.sh
	cd host && $(GO) test -tags e2econsole -count=1 -timeout 60m -run '^$$' -bench Console -benchtime 1x ./e2econsole/...

## bench: store/search latency at 10K and 100K, recall, plugin round trip, import rate,
## fold calibration and retrieval quality; results go to docs/benchmarks.md.
bench: build
	GO=$(GO) scripts/bench.sh

## bench-1m: the shared-database round alone at 1M memories, at the private cluster's default
## settings and with Postgres sized to hold it; results go to docs/benchmarks-1m.md (~30 min).
## bench-peers: memhost side by side with @ai-devkit/memory (npm, pinned in host/bench/peers),
## the same writes and questions through both MCP servers in one run, and memhost with a real
## CPU model (host/bench/use-lite) on the write path against the BM25 floor; prints the tables
## (make bench runs both too, into docs/benchmarks.md). Needs node and npm.
.PHONY: bench-peers
bench-peers: build
	GO=$(GO) scripts/bench.sh peers

.PHONY: bench-1m
bench-1m: build
	GO=$(GO) scripts/bench.sh 1m

postgres:
	scripts/ensure-postgres.sh

generate:
	cd sdk && $(GO) generate .

## proto-breaking: buf breaking against main (run before changing a released proto).
proto-breaking:
	cd sdk && GOWORK=off $(GO) tool -modfile=../tools/go.mod buf breaking proto --against '../.git#branch=main,subdir=sdk/proto'

clean:
	rm -rf $(BIN) dist
