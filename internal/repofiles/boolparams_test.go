package repofiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// A Go program reads a call to the module as it is written: f(x, true)
// says nothing of what true asks for. No exported function or method of
// the module takes a bool parameter; an options struct or a named
// constant says it (docs/development.md).
func TestNoExportedBoolParameters(t *testing.T) {
	root := Root()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !takesBool(fn.Type) {
				continue
			}
			name := filepath.ToSlash(rel) + "." + fn.Name.Name
			if fn.Recv != nil {
				name = filepath.ToSlash(rel) + "." + receiverName(fn.Recv) + "." + fn.Name.Name
			}
			t.Errorf("%s: %s takes a bool: give it an options struct or a named constant", fset.Position(fn.Pos()), name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func takesBool(ft *ast.FuncType) bool {
	for _, p := range ft.Params.List {
		if id, ok := p.Type.(*ast.Ident); ok && id.Name == "bool" {
			return true
		}
	}
	return false
}

func receiverName(recv *ast.FieldList) string {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}
