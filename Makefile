# memhost — the two commands of the README are `make run` and `make test`.
# Both install what they need (PostgreSQL 15 + pgvector) on a fresh Debian machine as root.

GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
export GOTOOLCHAIN ?= local

BIN := bin
PLUGIN_DIR := $(BIN)/plugins
PLUGINS := $(PLUGIN_DIR)/memhost-embedder-bm25 \
	$(PLUGIN_DIR)/memhost-provider-claude $(PLUGIN_DIR)/memhost-provider-codex $(PLUGIN_DIR)/memhost-provider-gemini \
	$(PLUGIN_DIR)/memhost-worker-agentcli $(PLUGIN_DIR)/memhost-worker-openaicompat \
	$(PLUGIN_DIR)/memhost-embedder-openaicompat

.PHONY: all build run test bench lint fmt generate proto-breaking clean postgres

all: build

build: $(BIN)/memhost $(PLUGINS)

# Go's own build cache decides what is stale; these targets always ask it.
.PHONY: $(BIN)/memhost $(PLUGINS)
$(BIN)/memhost:
	cd host && $(GO) build -trimpath -o ../$(BIN)/memhost ./cmd/memhost

$(PLUGIN_DIR)/memhost-embedder-bm25:
	cd plugins/embed-bm25 && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-embedder-bm25 .

$(PLUGIN_DIR)/memhost-provider-claude:
	cd plugins/provider-claude && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-provider-claude .

$(PLUGIN_DIR)/memhost-provider-codex:
	cd plugins/provider-codex && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-provider-codex .

$(PLUGIN_DIR)/memhost-provider-gemini:
	cd plugins/provider-gemini && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-provider-gemini .

$(PLUGIN_DIR)/memhost-worker-agentcli:
	cd plugins/worker-agentcli && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-worker-agentcli .

$(PLUGIN_DIR)/memhost-worker-openaicompat:
	cd plugins/worker-openaicompat && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-worker-openaicompat .

$(PLUGIN_DIR)/memhost-embedder-openaicompat:
	cd plugins/embed-openaicompat && $(GO) build -trimpath -o ../../$(PLUGIN_DIR)/memhost-embedder-openaicompat .

## run: build, provide Postgres 15 + pgvector, start a private cluster under ./.memhost
## (unless MEMHOST_DATABASE_URL is set), apply migrations and serve on 127.0.0.1:7420.
run: build
	GO=$(GO) scripts/run.sh

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

## bench: store/search latency at 10K and 100K, recall, plugin round trip, import rate,
## fold calibration and retrieval quality; results go to docs/benchmarks.md.
bench: build
	GO=$(GO) scripts/bench.sh

## bench-1m: the shared-database round alone at 1M memories, at the private cluster's default
## settings and with Postgres sized to hold it; results go to docs/benchmarks-1m.md (~30 min).
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
	rm -rf $(BIN)
