package mpi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocNamesEveryFunction checks that the package overview links every
// exported function, since go doc files many of them under the type they
// return, out of its function index.
func TestDocNamesEveryFunction(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() {
				continue
			}
			n++
			if !strings.Contains(string(doc), "["+fn.Name.Name+"]") {
				t.Errorf("doc.go does not link [%s] (%s)", fn.Name.Name, f)
			}
		}
	}
	if n < 100 {
		t.Errorf("found %d exported functions; is the package's source here?", n)
	}
}
