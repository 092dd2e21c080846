package openapi

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// A golden package's types have the codecs its code calls and no others: encode for what the
// client sends, decode for what it reads (a package of GitHub's operations had 1,900 that
// nothing called, which its build compiled and vetted all the same).
func TestNoCodecNothingCalls(t *testing.T) {
	dirs, _ := filepath.Glob("../../golden/openapi/*")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			pkgs, err := packages.Load(&packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo}, ".")
			if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
				t.Fatalf("loading %s: %v %v", dir, err, pkgs)
			}
			p := pkgs[0]
			called := map[types.Object]bool{}
			for _, sel := range p.TypesInfo.Selections {
				called[sel.Obj()] = true
			}
			for _, f := range p.Syntax {
				for _, d := range f.Decls {
					fn, ok := d.(*ast.FuncDecl)
					if !ok || fn.Recv == nil || (fn.Name.Name != "encode" && fn.Name.Name != "decode") {
						continue
					}
					if obj := p.TypesInfo.Defs[fn.Name]; !called[obj] {
						t.Errorf("%s: %s is never called", p.Fset.Position(fn.Pos()), types.ObjectString(obj, types.RelativeTo(p.Types)))
					}
				}
			}
		})
	}
}
