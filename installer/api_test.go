package installer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A Go program sees every type the installer's API names: none is an
// internal package's (an alias to one shows no fields in go doc, and a
// parameter of one cannot be written by a program outside this module).
// Values (the sentinel errors, the defaults) may come from the rooms: their
// type is error or a number.
func TestExportedAPINamesNoInternalType(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]string{} // local name -> import path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.Contains(p, "/internal/") {
				continue
			}
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			internal[local] = p
		}
		check := func(what string, n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
						t.Errorf("%s: %s names %s.%s from %s", fset.Position(sel.Pos()), what, id.Name, sel.Sel.Name, internal[id.Name])
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
					check(d.Name.Name, d.Type) // the signature, not the body
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						check(ts.Name.Name, ts.Type)
						continue
					}
					for _, fld := range st.Fields.List {
						if len(fld.Names) > 0 && fld.Names[0].IsExported() {
							check(ts.Name.Name+"."+fld.Names[0].Name, fld.Type)
						}
					}
				}
			}
		}
	}
}

func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
