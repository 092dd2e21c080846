package emit

import (
	"go/types"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// The names of a generated file. It shares the package block with the user's files, and
// every name is settled as it is written:
//
//   - its package-level identifiers are RegisterMCP and names starting with model.GenPrefix,
//     which the analysis reserves; each is allocated once (allocID), with a number added when
//     two Go names derive the same one (method S.Get and func SGet both give mcpgenCallSGet);
//   - its imports take an alias when their name is declared in the package, or is a name
//     generated code gives a local variable (importName);
//   - a local variable never takes a name the package declares at package level (a type
//     named key, a tool function named c), which it would hide from the function's body:
//     it is key_ instead, in every function of the file but RegisterMCP (localName);
//   - a declaration of the package that hides a predeclared identifier the generated code
//     uses (a func named new) cannot be worked around: the analysis reports it.

// idKey names one generated package-level identifier: what it belongs to (a declaration, a
// struct) and its role (Call, Input, Decode...).
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
		panic("emit: no identifier allocated for " + role)
	}
	return name
}

// locals are the names generated code gives its variables, parameters and temporaries
// (temporaries get a depth suffix: s1, list2; presence flags are hasField). An imported
// package with one of these names is imported under an alias instead, and localName
// refuses any other.
var locals = map[string]bool{"a": true, "args": true, "b": true, "c": true, "count": true, "ctx": true, "d": true,
	"dur": true, "e": true, "enc": true, "err": true, "f": true, "i": true, "in": true, "k": true, "key": true, "keyOK": true,
	"kn": true, "length": true, "list": true, "m": true, "n": true, "num": true, "ok": true, "out": true, "raw": true,
	"recv": true, "req": true, "s": true, "text": true, "uri": true, "v": true, "vars": true, "x": true}

// localName is the name a local variable of generated code takes: name, or, when the package
// declares name at package level, name with underscores until it declares none such.
// RegisterMCP refers to no declaration of the package (only to generated functions), so its
// locals keep their names (plainLocals).
func (e *emitter) localName(name string) string {
	if settled, ok := e.localNames[name]; ok && !e.plainLocals {
		return settled
	}
	if base := strings.TrimRight(name, "0123456789"); !locals[base] && !isFlag(name) {
		panic("emit: local " + name + " is not in locals")
	}
	if e.plainLocals {
		return name
	}
	settled := name
	for e.scope.Lookup(settled) != nil {
		settled += "_"
	}
	e.localNames[name] = settled
	return settled
}

// local writes a local variable.
func (e *emitter) local(name string) *jen.Statement { return jen.Id(e.localName(name)) }

// isFlag reports whether a name is a decoder's presence flag: hasName.
func isFlag(name string) bool {
	rest, ok := strings.CutPrefix(name, "has")
	return ok && rest != "" && unicode.IsUpper([]rune(rest)[0])
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
			types.Universe.Lookup(n) != nil || generatedName(n)
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

// generatedName reports whether name is one generated code declares at package level (or
// may: mcpgenXxx, which the analysis reserves). The package mcpgen is not one.
func generatedName(name string) bool {
	rest, ok := strings.CutPrefix(name, model.GenPrefix)
	return ok && rest != "" && unicode.IsUpper([]rune(rest)[0])
}

// stdImports are the packages generated code may import besides the runtime's, with names.
var stdImports = []string{"context", "fmt", "maps", "math", "regexp", "slices", "time", "unicode/utf8"}

// registerImports names the imports generated code may use, before anything is emitted.
func (e *emitter) registerImports() {
	e.importName(model.RuntimePath, "mcp")
	e.importName(model.ContractPath, "mcpgen")
	e.importName(model.JSONWirePath, "jsonwire")
	for _, p := range stdImports {
		e.importName(p, path.Base(p))
	}
}

// nameReceivers names the parameters of RegisterMCP that receive the values whose methods
// are declarations. A parameter must not hide what RegisterMCP's body refers to (imported
// packages, predeclared identifiers, generated functions), nor be hidden by the parameters of
// the closures it declares (ctx, c, uri, vars, args, req).
func (e *emitter) nameReceivers(recvs []*model.Receiver) {
	reserved := func(name string) bool {
		return name == "s" || locals[name] || e.taken[name] || e.importsUsed[name] || isKeyword(name) || types.Universe.Lookup(name) != nil
	}
	taken := map[string]bool{}
	for _, r := range recvs {
		base := lowerFirst(r.Type.Obj().Name())
		if reserved(base) {
			base += "Recv"
		}
		name := base
		for i := 2; taken[name] || reserved(name); i++ {
			name = base + strconv.Itoa(i)
		}
		taken[name] = true
		e.recvParams[r] = name
	}
}

func lowerFirst(s string) string {
	r := []rune(s)
	// Lower a leading acronym as a whole: HTTPClient -> httpClient.
	for i := range r {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) || !unicode.IsUpper(r[i]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

func isKeyword(s string) bool {
	return slices.Contains([]string{"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for",
		"func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
		"struct", "switch", "type", "var"}, s)
}

// goName is an annotated function's Go name, for generated identifiers: Func, or
// Type + Method for methods.
func goName(c *model.Callable) string {
	if c.Recv != nil {
		return c.Recv.Type.Obj().Name() + upperFirst(c.Func.Name())
	}
	return upperFirst(c.Func.Name())
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
