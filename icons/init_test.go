package icons

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoRegexpAtInit: programs that link icons or its safety walk
// (acp-registry's every command; acp, on every start) must not compile
// their patterns before an icon is checked, so no package-level variable
// may call regexp outside a function literal.
func TestNoRegexpAtInit(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	walk, _ := filepath.Glob("../internal/svgsafe/*.go")
	if len(walk) == 0 {
		t.Fatal("found no file of internal/svgsafe")
	}
	files = append(files, walk...)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at init
				}
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" {
						t.Errorf("%s: regexp.%s at package level: compile it on first use (sync.OnceValue)", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
