package gen

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The names of a generated file. It shares the package block with the user's files, so:
//
//   - its package-level identifiers are RegisterMCP and names starting with genPrefix,
//     which checkNames reserves; each is allocated once (ident), with a number added when two
//     Go names derive the same one (method S.Get and func SGet both give mcpgenCallSGet);
//   - its imports take an alias when their name is declared in the package, or is a name
//     generated code gives a local variable (importName);
//   - a local variable that would hide a declaration of the user's package that generated
//     code refers to in its scope (a type named key, a tool function named c) is renamed
//     (finish). The emitter writes such references as markers, so that they cannot be
//     confused with the locals, and finish puts the names back;
//   - a declaration of the user's package that hides a predeclared identifier the generated
//     code uses (a func named new) cannot be worked around: it is reported.

// idKey names one generated package-level identifier: what it belongs to (a tool, a struct)
// and its role (Call, Input, Decode...).
type idKey struct {
	owner any
	role  string
}

// alloc reserves a package-level identifier: want, or want with a number if it is taken.
func (e *emitter) alloc(want string) string {
	name := want
	for i := 2; e.taken[name]; i++ {
		name = want + strconv.Itoa(i)
	}
	e.taken[name] = true
	return name
}

// allocID reserves the identifier of an owner's role.
func (e *emitter) allocID(owner any, role, want string) {
	e.ids[idKey{owner, role}] = e.alloc(want)
}

// id is the identifier allocated for an owner's role.
func (e *emitter) id(owner any, role string) string {
	name, ok := e.ids[idKey{owner, role}]
	if !ok {
		panic("gen: no identifier allocated for " + role)
	}
	return name
}

// refPrefix starts the markers that stand for references to the user's declarations until
// finish replaces them. It cannot start an identifier mcpgen derives, and the user's package
// cannot declare a name with genPrefix.
const refPrefix = genPrefix + "ǂ"

// ref writes a reference to a package-level declaration of the user's package: a type or a
// function the generated code names without a qualifier.
func (e *emitter) ref(name string) *jen.Statement {
	marker, ok := e.refs[name]
	if !ok {
		marker = refPrefix + strconv.Itoa(len(e.refs))
		e.refs[name] = marker
		e.markers[marker] = name
	}
	return jen.Id(marker)
}

// importName chooses the name a package is imported under: its own, unless the user's
// package declares it or generated code names a local variable so; then an alias.
func (e *emitter) importName(pkgPath, name string) string {
	if n, ok := e.imports[pkgPath]; ok {
		return n
	}
	alias := name
	clash := func(n string) bool {
		return locals[strings.TrimRight(n, "0123456789")] || e.scope.Lookup(n) != nil || e.importsUsed[n] || isKeyword(n) ||
			types.Universe.Lookup(n) != nil || strings.HasPrefix(n, genPrefix)
	}
	if clash(alias) {
		alias = name + "pkg"
		for i := 2; clash(alias); i++ {
			alias = name + "pkg" + strconv.Itoa(i)
		}
		e.file.ImportAlias(pkgPath, alias)
	} else {
		e.file.ImportName(pkgPath, name)
	}
	e.imports[pkgPath] = alias
	e.importsUsed[alias] = true
	return alias
}

// stdImports are the packages generated code may import besides the runtime's, with names.
var stdImports = []string{"context", "fmt", "maps", "math", "regexp", "slices", "time", "unicode/utf8"}

// registerImports names the imports generated code may use, before anything is emitted.
func (e *emitter) registerImports() {
	e.importName(RuntimePath, "mcp")
	e.importName(JSONWirePath, "jsonwire")
	for _, p := range stdImports {
		e.importName(p, path.Base(p))
	}
}

// finish resolves the names of a rendered file: locals that would hide a user declaration
// the code refers to are renamed, and the markers of those references become their names.
// It returns the user's declarations that hide predeclared identifiers the code uses.
func (e *emitter) finish(src []byte) ([]byte, []types.Object, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, DefaultFileName, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	// go/types tells which identifier is which variable, struct fields and composite literal
	// keys apart. The file is checked alone, against imports that declare nothing: what it
	// uses of them and of the user's package (the markers) stays unresolved, and only its
	// own variables and the predeclared identifiers matter here.
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check(e.pkgPath, fset, []*ast.File{file}, info)
	local := func(id *ast.Ident) types.Object {
		obj := info.Defs[id]
		if obj == nil {
			obj = info.Uses[id]
		}
		if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != pkg.Scope() {
			return v
		}
		return nil
	}
	names := map[string]bool{} // every identifier of the file
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			names[id.Name] = true
		}
		return true
	})
	// In each function, the locals named like a user declaration its body refers to.
	// (Parameter types are outside the parameters' scope.)
	rename := map[types.Object]string{}
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		referenced := map[string]bool{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if real, ok := e.markers[id.Name]; ok {
					referenced[real] = true
				}
			}
			return true
		})
		ast.Inspect(fd, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || !referenced[id.Name] {
				return true
			}
			if v := local(id); v != nil {
				if _, done := rename[v]; !done {
					name := id.Name + "_"
					for names[name] || e.scope.Lookup(name) != nil {
						name += "_"
					}
					rename[v] = name
				}
			}
			return true
		})
	}
	var hidden []types.Object
	ast.Inspect(file, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		// A predeclared identifier (string, len, nil...) that the user's package declares.
		if obj := info.Uses[id]; obj != nil && obj.Parent() == types.Universe {
			if decl := e.scope.Lookup(id.Name); decl != nil && !slices.Contains(hidden, decl) {
				hidden = append(hidden, decl)
			}
		}
		return true
	})
	ast.Inspect(file, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v := local(id); v != nil && rename[v] != "" {
			id.Name = rename[v]
		} else if real, ok := e.markers[id.Name]; ok {
			id.Name = real
		}
		return true
	})
	var out bytes.Buffer
	if err := format.Node(&out, fset, file); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), hidden, nil
}

// emptyImporter gives finish's type check packages that declare nothing.
type emptyImporter struct{}

func (emptyImporter) Import(p string) (*types.Package, error) {
	pkg := types.NewPackage(p, path.Base(p))
	pkg.MarkComplete()
	return pkg, nil
}
