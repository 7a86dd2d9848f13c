package plugintest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// glue are the import paths a kind package uses for its conversion to and from proto but must
// not show its users: a plugin's code sees the kind's own types only.
var glue = []string{"google.golang.org/grpc", "github.com/hashicorp/go-plugin", "/sdk/internal/gen/"}

// RequireNoGlueInAPI fails t when an exported declaration of the package in dir (its
// non-test files) mentions a type of gRPC, go-plugin or the generated code: the kind package
// may convert to and from them, its API may not.
func RequireNoGlueInAPI(t testing.TB, dir string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, names, "no Go files in %s", dir)
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		banned := map[string]string{} // local import name -> path
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			for _, g := range glue {
				if strings.Contains(path, g) {
					local := path[strings.LastIndex(path, "/")+1:]
					if imp.Name != nil {
						local = imp.Name.Name
					}
					banned[local] = path
				}
			}
		}
		if len(banned) == 0 {
			continue
		}
		for _, decl := range f.Decls {
			for _, node := range exported(decl) {
				ast.Inspect(node, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name] != "" {
						t.Errorf("%s: exported API mentions %s.%s (%s)", name, x.Name, sel.Sel.Name, banned[x.Name])
					}
					return true
				})
			}
		}
	}
}

// exported returns the parts of decl a user of the package sees: the signatures of exported
// functions and methods on exported types, and exported types, variables and constants with
// their types (not their values, which may well be built from the glue).
func exported(decl ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv != nil && len(d.Recv.List) > 0 && !exportedRecv(d.Recv.List[0].Type) {
			return nil
		}
		out = append(out, d.Type)
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					out = append(out, exportedFields(s.Type))
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && s.Type != nil {
						out = append(out, s.Type)
						break
					}
				}
			}
		}
	}
	return out
}

// exportedFields drops the unexported fields of a struct type, which users cannot reach.
func exportedFields(t ast.Expr) ast.Node {
	st, ok := t.(*ast.StructType)
	if !ok || st.Fields == nil {
		return t
	}
	kept := &ast.FieldList{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || f.Names[0].IsExported() {
			kept.List = append(kept.List, f)
		}
	}
	return &ast.StructType{Fields: kept}
}

func exportedRecv(t ast.Expr) bool {
	switch r := t.(type) {
	case *ast.StarExpr:
		return exportedRecv(r.X)
	case *ast.IndexExpr:
		return exportedRecv(r.X)
	case *ast.Ident:
		return r.IsExported()
	}
	return false
}
