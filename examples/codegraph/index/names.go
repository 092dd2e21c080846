package index

import (
	"go/types"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// qname is the qualified name of a package-level object, a method of a package-level type or
// a field of a package-level struct type, as the graph's symbols spell it; "" for anything
// else (locals, builtins, methods of unnamed interfaces, fields of unnamed structs).
func (x *extractor) qname(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	switch obj := obj.(type) {
	case *types.Func:
		obj = obj.Origin()
		if recv := obj.Signature().Recv(); recv != nil {
			t := typeName(recv.Type())
			if t == nil || !packageLevel(t) {
				return ""
			}
			return t.Pkg().Path() + "." + t.Name() + "." + obj.Name()
		}
	case *types.Var:
		obj = obj.Origin()
		if obj.IsField() {
			owner := x.fields.owner(obj)
			if owner == "" {
				return ""
			}
			return owner + "." + obj.Name()
		}
	case *types.Builtin:
		// unsafe.Add, unsafe.Slice...: builtins with a package.
		return obj.Pkg().Path() + "." + obj.Name()
	case *types.PkgName, *types.Label, *types.Nil:
		return ""
	}
	if !packageLevel(obj) {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

func packageLevel(obj types.Object) bool {
	return obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()
}

// typeName is the name of a defined type T or *T (through aliases), or nil.
func typeName(t types.Type) *types.TypeName {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return n.Origin().Obj()
	}
	return nil
}

// fieldOwners maps the fields of each package's package-level struct types to their type's
// qualified name. A *types.Var does not know its struct; the package's scope does.
type fieldOwners struct {
	mu    sync.Mutex
	byPkg map[*types.Package]map[*types.Var]string
}

// forget drops what the cache holds of a package, once its facts are made.
func (f *fieldOwners) forget(p *types.Package) {
	f.mu.Lock()
	delete(f.byPkg, p)
	f.mu.Unlock()
}

func (f *fieldOwners) owner(v *types.Var) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.byPkg[v.Pkg()]
	if !ok {
		m = map[*types.Var]string{}
		scope := v.Pkg().Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					m[st.Field(i)] = tn.Pkg().Path() + "." + tn.Name()
				}
			}
		}
		if f.byPkg == nil {
			f.byPkg = map[*types.Package]map[*types.Var]string{}
		}
		f.byPkg[v.Pkg()] = m
	}
	return m[v]
}

// fingerprint spells a method's signature without the receiver or any name, with full
// package paths, so that two methods have identical types exactly when their fingerprints
// (and ids) are equal. Type parameters are spelled by their index.
func fingerprint(sig *types.Signature) string {
	var b strings.Builder
	writeSignature(&b, sig)
	return b.String()
}

func writeSignature(b *strings.Builder, sig *types.Signature) {
	b.WriteString("func(")
	writeTuple(b, sig.Params(), sig.Variadic())
	b.WriteString(")")
	if sig.Results().Len() > 0 {
		b.WriteString(" (")
		writeTuple(b, sig.Results(), false)
		b.WriteString(")")
	}
}

func writeTuple(b *strings.Builder, t *types.Tuple, variadic bool) {
	for i := range t.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			b.WriteString("...")
			typ = typ.(*types.Slice).Elem()
		}
		writeType(b, typ)
	}
}

func writeType(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Basic:
		b.WriteString(t.Name())
	case *types.Alias:
		writeType(b, types.Unalias(t))
	case *types.Named:
		obj := t.Origin().Obj()
		if obj.Pkg() != nil {
			b.WriteString(obj.Pkg().Path())
			b.WriteString(".")
		}
		b.WriteString(obj.Name())
		if args := t.TypeArgs(); args.Len() > 0 {
			b.WriteString("[")
			for i := range args.Len() {
				if i > 0 {
					b.WriteString(", ")
				}
				writeType(b, args.At(i))
			}
			b.WriteString("]")
		}
	case *types.Pointer:
		b.WriteString("*")
		writeType(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		writeType(b, t.Elem())
	case *types.Array:
		b.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		writeType(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		writeType(b, t.Key())
		b.WriteString("]")
		writeType(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		writeType(b, t.Elem())
	case *types.Signature:
		writeSignature(b, t)
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if f.Embedded() {
				b.WriteString("embedded ")
			}
			b.WriteString(f.Id())
			b.WriteString(" ")
			writeType(b, f.Type())
			if tag := t.Tag(i); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString("}")
	case *types.Interface:
		var ms []string
		for i := range t.NumMethods() {
			m := t.Method(i)
			var mb strings.Builder
			mb.WriteString(m.Id())
			writeSignature(&mb, m.Signature())
			ms = append(ms, mb.String())
		}
		sort.Strings(ms)
		b.WriteString("interface{" + strings.Join(ms, "; "))
		for i := range t.NumEmbeddeds() {
			if e := t.EmbeddedType(i); !types.IsInterface(e) {
				b.WriteString("; ")
				writeType(b, e)
			}
		}
		b.WriteString("}")
	case *types.Union:
		for i := range t.Len() {
			if i > 0 {
				b.WriteString("|")
			}
			if t.Term(i).Tilde() {
				b.WriteString("~")
			}
			writeType(b, t.Term(i).Type())
		}
	case *types.TypeParam:
		b.WriteString("$" + strconv.Itoa(t.Index()))
	case *types.Tuple:
		writeTuple(b, t, false)
	default:
		b.WriteString(t.String())
	}
}
