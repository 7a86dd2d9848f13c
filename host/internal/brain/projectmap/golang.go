package projectmap

import (
	"strings"
)

// goTools maps Go module paths (or prefixes ending in "/") to what they show.
var goTools = map[string]Tool{
	"github.com/gin-gonic/gin": {Name: "Gin", Kind: KindFramework}, "github.com/labstack/echo/": {Name: "Echo", Kind: KindFramework},
	"github.com/labstack/echo": {Name: "Echo", Kind: KindFramework}, "github.com/gofiber/fiber/": {Name: "Fiber", Kind: KindFramework},
	"github.com/go-chi/chi/": {Name: "chi", Kind: KindFramework}, "github.com/gorilla/mux": {Name: "gorilla/mux", Kind: KindFramework},
	"google.golang.org/grpc": {Name: "gRPC", Kind: KindFramework}, "connectrpc.com/connect": {Name: "Connect", Kind: KindFramework},
	"github.com/spf13/cobra": {Name: "Cobra", Kind: KindLibrary}, "github.com/urfave/cli/": {Name: "urfave/cli", Kind: KindLibrary},
	"github.com/jackc/pgx/": {Name: "pgx", Kind: KindLibrary}, "gorm.io/gorm": {Name: "GORM", Kind: KindLibrary},
	"entgo.io/ent": {Name: "ent", Kind: KindLibrary}, "github.com/hashicorp/go-plugin": {Name: "go-plugin", Kind: KindLibrary},
	"github.com/modelcontextprotocol/go-sdk": {Name: "MCP Go SDK", Kind: KindLibrary},
	"github.com/riverqueue/river":            {Name: "River", Kind: KindLibrary}, "github.com/stretchr/testify": {Name: "testify", Kind: KindTest},
	"github.com/onsi/ginkgo/": {Name: "Ginkgo", Kind: KindTest},
}

// readGoMod reads a module's path and requirements. A Go module builds, tests and vets the
// same way everywhere, so its commands are implied rather than read.
func readGoMod(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	var module string
	var deps []string
	inRequire := false
	for line := range strings.SplitSeq(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case inRequire && fields[0] == ")":
			inRequire = false
		case inRequire:
			deps = append(deps, fields[0])
		case fields[0] == "module" && len(fields) > 1:
			module = strings.Trim(fields[1], `"`)
		case fields[0] == "require" && len(fields) > 1 && fields[1] == "(":
			inRequire = true
		case fields[0] == "require" && len(fields) > 1:
			deps = append(deps, fields[1])
		}
	}
	a.addTool("Go modules", KindBuild, file)
	a.addModule(b.scan, dir, "go", module, "")
	a.detect(goTools, deps, file)
	for _, c := range []Command{
		{Kind: CmdBuild, Run: "go build ./..."},
		{Kind: CmdTest, Run: "go test ./..."},
		{Kind: CmdLint, Run: "go vet ./..."},
	} {
		c.Dir, c.Source = dir, file
		a.addCommand(rankToolchain, c)
	}
	for _, cfg := range []string{".golangci.yml", ".golangci.yaml", ".golangci.toml"} {
		for _, d := range ancestors(dir) {
			if b.scan.has(join(d, cfg)) {
				a.addCommand(rankToolchain, Command{Kind: CmdLint, Run: "golangci-lint run", Dir: dir, Source: join(d, cfg)})
			}
		}
	}
}

// readGoWork notes a Go workspace: its modules are each read from their own go.mod.
func readGoWork(_ *builder, a *analysis, _, file string) {
	a.addTool("Go workspace", KindBuild, file)
}
