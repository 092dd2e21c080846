package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated encoders: for every struct a result uses, a function that writes it as
// encoding/json would (see docs/schemas.md for the few intended differences), with no reflection.

// encoder emits the encode function of a struct.
func (e *emitter) encoder(o *schema.Object) jen.Code {
	body := []jen.Code{e.local("e").Dot("ObjectStart").Call()}
	for _, f := range o.Fields {
		src := e.localName("v") + "." + fieldPath(f)
		value := e.encode(f.Type, src, 0)
		if f.Type.Kind == schema.Pointer && f.OmitOut != schema.OmitNever {
			value = e.encode(f.Type.Elem, deref(src), 1) // the guard below rules out nil
		}
		stmts := append([]jen.Code{e.local("e").Dot("Key").Call(jen.Lit(f.Name))}, value...)
		body = append(body, e.guard(f, src, stmts)...)
	}
	if o.Rest != nil {
		body = append(body, e.encodeRest(o)...)
	}
	body = append(body, e.local("e").Dot("ObjectEnd").Call())
	name := e.id(o, "Encode")
	return jen.Comment(fmt.Sprintf("%s writes a value of type %s as JSON.", name, o.DisplayName())).Line().
		Func().Id(name).Params(e.local("e").Op("*").Add(wire("Encoder")), e.local("v").Op("*").Add(e.typ(o.Go))).Block(body...)
}

// guard wraps the statements that write a field in the conditions under which it is
// written: its omit option, and the embedded pointers on its path being set.
func (e *emitter) guard(f *schema.Field, src string, stmts []jen.Code) []jen.Code {
	if cond := e.present(f, src); cond != nil {
		stmts = []jen.Code{jen.If(cond).Block(stmts...)}
	}
	for i := len(f.Path) - 2; i >= 0; i-- {
		if f.Path[i].Pointer {
			stmts = []jen.Code{jen.If(jen.Id(e.localName("v") + "." + pathTo(f, i+1)).Op("!=").Nil()).Block(stmts...)}
		}
	}
	return stmts
}

// present is the condition under which a field's omit option keeps it, or nil if it is
// always written.
func (e *emitter) present(f *schema.Field, src string) jen.Code {
	switch f.OmitOut {
	case schema.OmitEmpty:
		return nonEmpty(f.Type.Go, src)
	case schema.OmitZero:
		return e.nonZero(f.Type.Go, src)
	case schema.OmitNil:
		return jen.Id(src).Op("!=").Nil()
	}
	return nil
}

// nonEmpty is the condition under which encoding/json's omitempty keeps a value: by its Go
// kind, as encoding/json decides.
func nonEmpty(t types.Type, x string) jen.Code {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return jen.Id(x).Op("!=").Lit("")
		case u.Info()&types.IsBoolean != 0:
			return jen.Id(x)
		default:
			return jen.Id(x).Op("!=").Lit(0)
		}
	case *types.Slice, *types.Map, *types.Array:
		return jen.Len(jen.Id(x)).Op("!=").Lit(0)
	case *types.Pointer, *types.Interface:
		return jen.Id(x).Op("!=").Nil()
	}
	return nil // structs are never empty
}

// nonZero is the condition under which encoding/json's omitzero keeps a value: an IsZero
// method if the type has one, otherwise the value differs from the zero value (for floats,
// by their bits, so that -0 is kept, as encoding/json keeps it).
func (e *emitter) nonZero(t types.Type, x string) jen.Code {
	if schema.HasIsZero(t) {
		return jen.Op("!").Id(x).Dot("IsZero").Call()
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsFloat != 0 {
			return jen.Qual("math", "Float64bits").Call(e.convert(jen.Id(x), t, types.Typ[types.Float64])).Op("!=").Lit(0)
		}
		return nonEmpty(t, x) // for other basic types, empty and zero are one
	case *types.Slice, *types.Map, *types.Pointer, *types.Interface:
		return jen.Id(x).Op("!=").Nil()
	}
	return jen.Id(x).Op("!=").Parens(e.zero(t)) // a comparable struct or array (the builder checked)
}

// writer is the encoder method that writes a scalar kind and the Go type it takes.
type writer struct {
	method string
	goType types.Type
}

var writers = map[schema.Kind]writer{
	schema.String:     {"String", types.Typ[types.String]},
	schema.Bool:       {"Bool", types.Typ[types.Bool]},
	schema.Int:        {"Int", types.Typ[types.Int64]},
	schema.Uint:       {"Uint", types.Typ[types.Uint64]},
	schema.Float:      {"Float", types.Typ[types.Float64]},
	schema.Bytes:      {"Base64", types.NewSlice(types.Typ[types.Byte])},
	schema.Any:        {"Any", types.NewInterfaceType(nil, nil)},
	schema.JSONNumber: {"Number", types.Typ[types.String]},
	schema.RawJSON:    {"RawJSON", types.NewSlice(types.Typ[types.Byte])},
}

// encode emits statements that write the value of src, an expression of type t.Go.
func (e *emitter) encode(t *schema.Type, src string, depth int) []jen.Code {
	enc := func() *jen.Statement { return e.local("e") }
	switch t.Kind {
	case schema.Pointer:
		return []jen.Code{jen.If(jen.Id(src).Op("==").Nil()).Block(enc().Dot("Null").Call()).Else().Block(
			e.encode(t.Elem, deref(src), depth+1)...)}
	case schema.ThreeStates:
		// The value, else null: mcp.Nullable's MarshalJSON writes null when left out too.
		x := e.temp("x", depth)
		return []jen.Code{jen.If(jen.List(jen.Id(x), e.local("ok")).Op(":=").Id(src).Dot("Get").Call(), e.local("ok")).Block(
			e.encode(t.Elem, x, depth+1)...).Else().Block(enc().Dot("Null").Call())}
	case schema.Struct:
		return []jen.Code{jen.Id(e.id(t.Object, "Encode")).Call(enc(), jen.Id(addr(src)))}
	case schema.Slice, schema.Array:
		i := e.temp("i", depth)
		loop := []jen.Code{enc().Dot("Elem").Call()}
		loop = append(loop, e.encode(t.Elem, src+"["+i+"]", depth+1)...)
		return []jen.Code{
			enc().Dot("ArrayStart").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Id(bare(src))).Block(loop...),
			enc().Dot("ArrayEnd").Call(),
		}
	case schema.Map:
		return e.encodeMap(t, src, depth)
	case schema.Text:
		return []jen.Code{enc().Dot("MarshaledText").Call(jen.Id(src).Dot("MarshalText").Call())}
	case schema.Custom:
		return []jen.Code{enc().Dot("MarshaledJSON").Call(jen.Id(src).Dot("MarshalJSON").Call())}
	case schema.Duration:
		return []jen.Code{enc().Dot("Duration").Call(jen.Id(bare(src)))}
	}
	if t.Kind == schema.Bytes && !bytesType(t.Go) {
		// A slice of a named byte type ([]MyByte): copied into a []byte, in a block of its own.
		b, i, x := e.temp("b", depth), e.temp("i", depth), e.temp("x", depth)
		return []jen.Code{jen.Block(
			jen.Id(b).Op(":=").Make(jen.Index().Byte(), jen.Len(jen.Id(bare(src)))),
			jen.For(jen.List(jen.Id(i), jen.Id(x)).Op(":=").Range().Id(bare(src))).Block(
				jen.Id(b).Index(jen.Id(i)).Op("=").Byte().Parens(jen.Id(x))),
			enc().Dot("Base64").Call(jen.Id(b)),
		)}
	}
	w, ok := writers[t.Kind]
	if !ok {
		panic(fmt.Sprintf("gen: no encoder for kind %d", t.Kind))
	}
	method := w.method
	if t.Quoted {
		method = "Quoted" + method
	}
	args := []jen.Code{e.convert(jen.Id(bare(src)), t.Go, w.goType)}
	if t.Kind == schema.Float {
		args = append(args, jen.Lit(t.Bits))
	}
	return []jen.Code{enc().Dot(method).Call(args...)}
}

// encodeMap writes a map with its keys in the order encoding/json writes them.
func (e *emitter) encodeMap(t *schema.Type, src string, depth int) []jen.Code {
	k, x := e.temp("k", depth), e.temp("x", depth)
	keyType := t.Go.Underlying().(*types.Map).Key()
	var keys, writeKey jen.Code
	switch t.Key.Kind {
	case schema.Int:
		keys = wire("IntKeys").Call(jen.Id(bare(src))) // sorted as text, not as numbers
		writeKey = e.local("e").Dot("IntKey").Call(e.convert(jen.Id(k), keyType, types.Typ[types.Int64]))
	case schema.Uint:
		keys = wire("IntKeys").Call(jen.Id(bare(src)))
		writeKey = e.local("e").Dot("UintKey").Call(e.convert(jen.Id(k), keyType, types.Typ[types.Uint64]))
	default:
		keys = jen.Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id(bare(src))))
		writeKey = e.local("e").Dot("Key").Call(e.convert(jen.Id(k), keyType, types.Typ[types.String]))
	}
	loop := []jen.Code{writeKey, jen.Id(x).Op(":=").Id(src).Index(jen.Id(k))}
	loop = append(loop, e.encode(t.Elem, x, depth+1)...)
	return []jen.Code{
		e.local("e").Dot("ObjectStart").Call(),
		jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(keys)).Block(loop...),
		e.local("e").Dot("ObjectEnd").Call(),
	}
}

// encodeRest writes the members of a struct's Rest map after its properties, in key order. A
// key that is one of the properties is an error, not a second member of that name.
func (e *emitter) encodeRest(o *schema.Object) []jen.Code {
	f := o.Rest
	src := e.localName("v") + "." + fieldPath(f)
	k, x := e.localName("k"), e.localName("x")
	keyType := f.Type.Go.Underlying().(*types.Map).Key()
	key := e.convert(jen.Id(k), keyType, types.Typ[types.String])
	var loop []jen.Code
	if len(o.Fields) > 0 {
		var names []jen.Code
		for _, p := range o.Fields {
			names = append(names, jen.Lit(p.Name))
		}
		loop = append(loop, jen.If(jen.Qual("slices", "Contains").Call(jen.Index().String().Values(names...), key)).Block(
			e.local("e").Dot("Fail").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit(o.DisplayName()+"."+f.Path[0].Name+" has %q, which is a property of its own"), jen.Id(k))),
			jen.Continue()))
	}
	loop = append(loop, e.local("e").Dot("Key").Call(key), jen.Id(x).Op(":=").Id(src).Index(jen.Id(k)))
	loop = append(loop, e.encode(f.Type.Elem, x, 1)...)
	return []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id(src)))).Block(loop...)}
}
