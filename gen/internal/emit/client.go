package emit

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The codec file of a typed client that reuses a server's Go types (mcpgen import of an
// mcpgen server's package). The client lives in another package: it encodes the arguments
// the server decodes and decodes the results the server encodes, with the same generated
// code the server's own file has, the other way round, and with names qualified.

// ClientCodecs writes the codec file (importer.CodecFile), in package pkgName at import
// path pkgPath, for the tools whose types can be named from there. Reuse.Notes say, for each
// type that cannot, why the client gets a copy of it generated from the schema instead.
// Reuse.Codec is nil when no type is reused.
func ClientCodecs(pkgPath, pkgName string, tools []*model.Tool) (*importer.Reuse, error) {
	r := &importer.Reuse{Tools: map[string]importer.ReusedTool{}, Imports: map[string]string{}}
	var encoded, decoded []*schema.Object
	var ins, outs []*model.Tool
	seenIn, seenOut := map[*schema.Object]bool{}, map[*schema.Object]bool{}
	for _, t := range tools {
		if t.In != nil && t.In.Kind == schema.Struct {
			if why := reusable(t.In, pkgPath, true, map[*schema.Object]bool{}); why != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("tool %s: the argument type %s is generated from the schema: %s", t.Name, t.In.Object.DisplayName(), why))
			} else {
				ins = append(ins, t)
				objects(t.In, seenIn, &encoded)
			}
		}
		if t.Out == model.OutStruct && t.OutType.Kind == schema.Struct {
			if why := reusable(t.OutType, pkgPath, false, map[*schema.Object]bool{}); why != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("tool %s: the result type %s is generated from the schema: %s", t.Name, t.OutType.Object.DisplayName(), why))
			} else {
				outs = append(outs, t)
				objects(t.OutType, seenOut, &decoded)
			}
		}
	}
	if len(ins)+len(outs) == 0 {
		return r, nil
	}
	e := newEmitter(pkgPath, pkgName, types.NewScope(nil, 0, 0, ""))
	e.lenient = true
	e.allocCodecs(encoded, "Encode")
	e.allocCodecs(decoded, "Decode")
	for _, t := range ins {
		rt := r.Tools[t.Name]
		rt.In, rt.Encode = e.typ(t.In.Object.Go), e.id(t.In.Object, "Encode")
		r.Tools[t.Name] = rt
		packagesOf(t.In.Object.Go, r.Imports)
	}
	for _, t := range outs {
		rt := r.Tools[t.Name]
		rt.Out, rt.Decode = e.typ(t.OutType.Object.Go), e.id(t.OutType.Object, "Decode")
		r.Tools[t.Name] = rt
		packagesOf(t.OutType.Object.Go, r.Imports)
	}
	f := e.file
	var code []jen.Code
	for _, o := range encoded {
		code = append(code, e.encoder(o))
	}
	for _, o := range decoded {
		code = append(code, e.decoder(o))
	}
	if len(e.patterns) > 0 || len(e.rats) > 0 {
		code = append(code, e.vars())
	}
	f.PackageComment("The encoders of the arguments and the decoders of the results of the server's tools whose Go types")
	f.PackageComment("this package reuses: the code the server's generated file has, the other way round.")
	for i, c := range code {
		if i > 0 {
			f.Line()
		}
		f.Add(c)
	}
	src, err := e.render()
	if err != nil {
		return nil, err
	}
	r.Codec = src
	return r, nil
}

// reusable says why a struct type cannot be named and filled from the package at pkgPath,
// or "" if it can: every Go type the codec names must be exported from a package that
// package may import, every field on a selector path exported, and every type that writes
// (encode) or reads (decode) itself able to.
func reusable(t *schema.Type, pkgPath string, encode bool, seen map[*schema.Object]bool) string {
	if why := nameable(t.Go, pkgPath); why != "" {
		return why
	}
	switch t.Kind {
	case schema.Struct:
		if seen[t.Object] {
			return ""
		}
		seen[t.Object] = true
		for _, f := range t.Object.Members() {
			for _, s := range f.Path {
				if !s.Hidden && !ast.IsExported(s.Name) {
					return fmt.Sprintf("its field %s is reached through the unexported embedded field %s", f.Name, s.Name)
				}
				if s.Pointer {
					if why := nameable(s.PtrTo, pkgPath); why != "" {
						return why
					}
				}
			}
			if why := reusable(f.Type, pkgPath, encode, seen); why != "" {
				return why
			}
		}
	case schema.Text, schema.Custom:
		if encode && !t.CanEncode {
			return fmt.Sprintf("%s cannot write itself (it has no MarshalText or MarshalJSON)", t.Go)
		}
		if !encode && !t.CanDecode {
			return fmt.Sprintf("%s cannot read itself (it has no UnmarshalText or UnmarshalJSON)", t.Go)
		}
	}
	if t.Elem != nil {
		return reusable(t.Elem, pkgPath, encode, seen)
	}
	return ""
}

// packagesOf adds the packages a type names to imports, with their names.
func packagesOf(t types.Type, imports map[string]string) {
	switch t := t.(type) {
	case *types.Alias, *types.Named:
		obj := t.(interface{ Obj() *types.TypeName }).Obj()
		if obj.Pkg() != nil {
			imports[obj.Pkg().Path()] = obj.Pkg().Name()
		}
		for a := range typeArgs(t).Types() {
			packagesOf(a, imports)
		}
	case interface{ Elem() types.Type }: // pointers, slices, arrays, maps (their values)
		if m, ok := t.(*types.Map); ok {
			packagesOf(m.Key(), imports)
		}
		packagesOf(t.Elem(), imports)
	}
}

// typeArgs are the type arguments of an instance of a generic type or alias; nil for
// none (a nil list ranges over nothing).
func typeArgs(t types.Type) *types.TypeList {
	switch t := t.(type) {
	case *types.Named:
		return t.TypeArgs()
	case *types.Alias:
		return t.TypeArgs()
	}
	return nil
}

// nameable says why generated code in the package at pkgPath cannot write the type t, or "".
func nameable(t types.Type, pkgPath string) string {
	switch t := t.(type) {
	case *types.Alias, *types.Named:
		obj := t.(interface{ Obj() *types.TypeName }).Obj()
		if obj.Pkg() == nil {
			return "" // error, comparable
		}
		switch {
		case !obj.Exported():
			return fmt.Sprintf("%s is not exported", obj.Name())
		case obj.Pkg().Name() == "main":
			return fmt.Sprintf("%s is declared in package main, which cannot be imported (move the tools into a package of their own to reuse their types)", obj.Name())
		case !importable(obj.Pkg().Path(), pkgPath):
			return fmt.Sprintf("package %s is internal to another tree than %s", obj.Pkg().Path(), pkgPath)
		case obj.Parent() != obj.Pkg().Scope():
			return fmt.Sprintf("%s is declared inside a function", obj.Name())
		}
		for a := range typeArgs(t).Types() {
			if why := nameable(a, pkgPath); why != "" {
				return why
			}
		}
	case *types.Pointer:
		return nameable(t.Elem(), pkgPath)
	case *types.Slice:
		return nameable(t.Elem(), pkgPath)
	case *types.Array:
		return nameable(t.Elem(), pkgPath)
	case *types.Map:
		if why := nameable(t.Key(), pkgPath); why != "" {
			return why
		}
		return nameable(t.Elem(), pkgPath)
	case *types.Interface:
		if !t.Empty() {
			return fmt.Sprintf("%s is an interface", t)
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if !t.Field(i).Exported() {
				return fmt.Sprintf("the struct type %s has unexported fields, which make it a type only its own package can write", t)
			}
			if why := nameable(t.Field(i).Type(), pkgPath); why != "" {
				return why
			}
		}
	}
	return ""
}

// importable applies the go command's rule for internal packages: path/internal/... may be
// imported from path/... only.
func importable(path, from string) bool {
	i := strings.LastIndex("/"+path+"/", "/internal/")
	if i < 0 {
		return true
	}
	if i == 0 {
		return true // internal at a module's root: left to the go command to judge
	}
	parent := path[:i-1]
	return from == parent || strings.HasPrefix(from, parent+"/")
}
