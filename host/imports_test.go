package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/memhost/memhost/host/"

// wingRules says which wings each wing's production code may import (a wing always may import
// itself). docs/design.md explains each arrow; a change here is a change of the architecture and
// belongs in that document too.
var wingRules = map[string][]string{
	"core":    {},
	"wire":    {},
	"config":  {},
	"plugins": {"core", "config"},
	"brain":   {"core", "config", "wire"},
	"jobs":    {"core", "brain", "config", "plugins", "wire"},
	"api":     {"core", "brain", "config", "plugins", "wire"},
	"client":  {"core", "config", "plugins", "wire"},
	"daemon":  {"core", "brain", "config", "plugins", "wire", "jobs", "api"},
	"testkit": {"core", "brain", "config", "plugins", "wire", "jobs", "api", "daemon", "client"},
	"bench":   {"core", "brain", "config", "plugins", "wire", "jobs", "api", "daemon", "client", "testkit"},
	"cmd":     {"core", "brain", "config", "plugins", "wire", "jobs", "api", "daemon", "client", "bench"},
	"e2e":     {"core", "brain", "config", "plugins", "wire", "jobs", "api", "daemon", "client", "testkit"},
}

// concreteStore is PostgreSQL's store. Only the composition root (daemon), the binaries, the
// bench and tests build one: everyone else works through the store interfaces, so a job or a
// surface can be tested against any store and cannot reach past the service's rules.
const concreteStore = "internal/core/store/pgstore"

var concreteStoreUsers = []string{"daemon", "cmd", "bench", "testkit", "e2e"}

// testOnly are packages made for tests: production code never imports them.
var testOnly = []string{"internal/testkit", "internal/core/store/storetest", "bench"}

// wingOf names the wing a package (its path inside the module) belongs to.
func wingOf(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "internal/"):
		return strings.SplitN(strings.TrimPrefix(pkg, "internal/"), "/", 2)[0]
	case pkg == "e2ecli" || strings.HasPrefix(pkg, "e2e"):
		return "e2e"
	}
	return strings.SplitN(pkg, "/", 2)[0]
}

func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

// pkgImports is one package of `go list -json`, paths relative to the module.
type pkgImports struct {
	ImportPath string
	Imports    []string // production imports only: tests may import what they need
}

// violations lists every production import that breaks a rule, one line each, naming the
// importing package, the imported one and the rule.
func violations(pkgs []pkgImports) []string {
	var out []string
	for _, p := range pkgs {
		from := wingOf(p.ImportPath)
		allowed, known := wingRules[from]
		if !known {
			out = append(out, fmt.Sprintf("%s is in no known wing (%q): add it to wingRules and docs/design.md", p.ImportPath, from))
			continue
		}
		for _, imp := range p.Imports {
			to := wingOf(imp)
			switch {
			case slices.ContainsFunc(testOnly, func(t string) bool { return under(imp, t) }) &&
				!slices.ContainsFunc(testOnly, func(t string) bool { return under(p.ImportPath, t) }) && from != "cmd" && from != "e2e":
				out = append(out, fmt.Sprintf("%s imports %s: test helpers and the bench are never imported by production code", p.ImportPath, imp))
			case under(imp, concreteStore) && !slices.Contains(concreteStoreUsers, from) && !under(p.ImportPath, "internal/core/store"):
				out = append(out, fmt.Sprintf("%s imports %s: only %s build the PostgreSQL store; use the interfaces of internal/core/store", p.ImportPath, imp, strings.Join(concreteStoreUsers, ", ")))
			case to != from && !slices.Contains(allowed, to):
				out = append(out, fmt.Sprintf("%s imports %s: %s may import only %s", p.ImportPath, imp, from, describe(from, allowed)))
			}
		}
	}
	return out
}

func describe(from string, allowed []string) string {
	if len(allowed) == 0 {
		return from
	}
	return strings.Join(append([]string{from}, allowed...), ", ")
}

// listModule runs `go list -json ./...` in the module and keeps the module's own imports.
func listModule(t *testing.T) []pkgImports {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []pkgImports
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgImports
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		if !strings.HasPrefix(p.ImportPath, module) {
			continue
		}
		own := pkgImports{ImportPath: strings.TrimPrefix(p.ImportPath, module)}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				own.Imports = append(own.Imports, strings.TrimPrefix(imp, module))
			}
		}
		pkgs = append(pkgs, own)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// TestImportsRunOneWay is the architecture's check in make test: a production import against
// the wings' rules fails it, naming the import.
func TestImportsRunOneWay(t *testing.T) {
	t.Parallel()
	if v := violations(listModule(t)); len(v) > 0 {
		t.Fatalf("imports against docs/design.md's rules:\n  %s", strings.Join(v, "\n  "))
	}
}

// TestViolationsAreNamed plants one violation of each rule and checks the checker names it.
func TestViolationsAreNamed(t *testing.T) {
	t.Parallel()
	got := violations([]pkgImports{
		{ImportPath: "internal/core/memory", Imports: []string{"internal/core/store", "internal/api/access"}},
		{ImportPath: "internal/api/restapi", Imports: []string{"internal/jobs/maintenance", "internal/core/memory"}},
		{ImportPath: "internal/jobs/maintenance", Imports: []string{"internal/core/store/pgstore"}},
		{ImportPath: "internal/client/hostclient", Imports: []string{"internal/api/mcpserver", "internal/wire"}},
		{ImportPath: "internal/daemon/server", Imports: []string{"internal/testkit/testdb", "internal/core/store/pgstore"}},
		{ImportPath: "internal/core/store/pgstore", Imports: []string{"internal/core/store"}},
		{ImportPath: "internal/testkit/testdb", Imports: []string{"internal/daemon/migrate"}},
		{ImportPath: "internal/attic/x", Imports: nil},
	})
	require.Equal(t, []string{
		"internal/core/memory imports internal/api/access: core may import only core",
		"internal/api/restapi imports internal/jobs/maintenance: api may import only api, core, brain, config, plugins, wire",
		"internal/jobs/maintenance imports internal/core/store/pgstore: only daemon, cmd, bench, testkit, e2e build the PostgreSQL store; use the interfaces of internal/core/store",
		"internal/client/hostclient imports internal/api/mcpserver: client may import only client, core, config, plugins, wire",
		"internal/daemon/server imports internal/testkit/testdb: test helpers and the bench are never imported by production code",
		`internal/attic/x is in no known wing ("attic"): add it to wingRules and docs/design.md`,
	}, got)
}
