package emit

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated decoders: for every struct an argument uses, a function that decodes it from
// JSON and validates it against its schema, field by field, collecting every problem. Values
// are read through runtime/jsonwire, with no reflection.
//
// Go expressions are passed around as strings ("v.City", "list[i]", "(*v.P)"): generated code
// names only its own locals and the user's fields.

func wire(name string) *jen.Statement { return jen.Qual(model.JSONWirePath, name) }

func (e *emitter) d() *jen.Statement { return e.local("d") }

// addr returns the address of an expression.
func addr(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") {
		return x[2 : len(x)-1]
	}
	return "&" + x
}

// deref dereferences a pointer expression, in parentheses so that it can be indexed.
func deref(x string) string { return "(*" + x + ")" }

// bare writes an expression where it stands alone (an assignment's target, an argument):
// *p rather than (*p), which is only needed before an index or a selector.
func bare(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") {
		return "*" + x[2:len(x)-1]
	}
	return x
}

// temp names a temporary at a nesting depth: s, s1, s2...
func (e *emitter) temp(name string, depth int) string {
	if depth == 0 {
		return e.localName(name)
	}
	return e.localName(name + strconv.Itoa(depth))
}

// decoder emits the decode function of a struct.
func (e *emitter) decoder(o *schema.Object) jen.Code {
	var body []jen.Code
	body = append(body, jen.If(jen.Op("!").Add(e.d()).Dot("Expect").Call(wire("Object"))).Block(jen.Return()))

	var flags, cases, after []jen.Code
	var known []string
	for _, f := range o.Fields {
		known = append(known, strconv.Quote(f.Name))
		dst := e.localName("v") + "." + fieldPath(f)
		var stmts []jen.Code
		flag := e.localName("has" + flagName(f))
		inner := f.Type.Deref()
		track := f.Required || inner.Rules.Default != nil || inner.Rules.Defaults != nil
		if track {
			flags = append(flags, jen.Id(flag))
			stmts = append(stmts, jen.Id(flag).Op("=").True())
		}
		stmts = append(stmts, e.allocEmbedded(f)...)
		if !f.Required && !f.Type.Nullable && !inner.Nullable && inner.Kind != schema.Any && inner.Kind != schema.RawJSON && inner.Kind != schema.Custom {
			// Models often send null for an argument they mean to leave out: tell them how.
			if e.lenient {
				stmts = append(stmts, jen.If(e.d().Dot("Null").Call()).Block(jen.Continue())) // as if left out
			} else {
				stmts = append(stmts, jen.If(e.d().Dot("Null").Call()).Block(e.report("must not be null; leave the property out instead"), jen.Continue()))
			}
		}
		stmts = append(stmts, e.decode(f.Type, dst, 0)...)
		cases = append(cases, jen.Case(jen.Lit(f.Name)).Block(stmts...))
		switch {
		case f.Required:
			after = append(after, jen.If(jen.Op("!").Id(flag)).Block(e.d().Dot("ReportMissing").Call(jen.Lit(f.Name))))
		case track:
			after = append(after, jen.If(jen.Op("!").Id(flag)).Block(append(e.allocEmbedded(f), e.setDefault(f.Type, dst)...)...))
		}
	}
	unknown := "unknown property; this object has no properties"
	if len(known) > 0 {
		unknown = "unknown property; expected one of " + strings.Join(known, ", ")
	}
	var other []jen.Code
	switch {
	case o.Rest != nil:
		other = e.decodeRest(o.Rest)
	case e.lenient:
		other = []jen.Code{e.d().Dot("Skip").Call()}
	default:
		other = []jen.Code{e.report(unknown), e.d().Dot("Skip").Call()}
	}
	cases = append(cases, jen.Default().Block(other...))

	if len(flags) > 0 {
		body = append(body, jen.Var().List(flags...).Bool())
	}
	switch {
	case len(o.Fields) == 0 && o.Rest != nil:
		body = append(body, jen.For(e.local("key").Op(":=").Range().Add(e.d()).Dot("Members")).Block(other...))
	case len(o.Fields) == 0:
		body = append(body, jen.For(jen.Range().Add(e.d()).Dot("Members")).Block(other...))
	default:
		body = append(body, jen.For(e.local("key").Op(":=").Range().Add(e.d()).Dot("Members")).Block(
			jen.Switch(jen.String().Parens(e.local("key"))).Block(cases...)))
	}
	body = append(body, after...)
	name := e.id(o, "Decode")
	return jen.Comment(fmt.Sprintf("%s decodes a value of type %s and checks it against its schema.", name, o.DisplayName())).Line().
		Func().Id(name).Params(e.local("d").Op("*").Add(wire("Decoder")), e.local("v").Op("*").Add(e.typ(o.Go))).Block(body...)
}

// decodeRest decodes a member besides the properties into the struct's Rest map, checked
// against the rules of the map's values.
func (e *emitter) decodeRest(f *schema.Field) []jen.Code {
	dst := e.localName("v") + "." + fieldPath(f)
	x := e.localName("x")
	keyType := f.Type.Go.Underlying().(*types.Map).Key()
	body := []jen.Code{jen.Var().Id(x).Add(e.typ(f.Type.Elem.Go))}
	body = append(body, e.decode(f.Type.Elem, x, 1)...)
	return append(body,
		jen.If(jen.Id(dst).Op("==").Nil()).Block(jen.Id(dst).Op("=").Add(e.typ(f.Type.Go)).Values()),
		jen.Id(dst).Index(e.typ(keyType).Parens(e.local("key"))).Op("=").Id(x))
}

func (e *emitter) report(msg string) jen.Code { return e.d().Dot("Report").Call(jen.Lit(msg)) }

// fieldPath is the selector chain from a struct value to a (possibly promoted) field.
func fieldPath(f *schema.Field) string {
	return pathTo(f, len(f.Path))
}

// pathTo is the selector chain to the first n steps of a field's path. Embedded fields that
// generated code cannot name are left out: the fields they promote are selected directly.
func pathTo(f *schema.Field, n int) string {
	var names []string
	for _, s := range f.Path[:n] {
		if !s.Hidden {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ".")
}

func flagName(f *schema.Field) string {
	var b strings.Builder
	for _, s := range f.Path {
		b.WriteString(upperFirst(s.Name))
	}
	return b.String()
}

// allocEmbedded allocates the embedded pointers on the way to a promoted field.
func (e *emitter) allocEmbedded(f *schema.Field) []jen.Code {
	var out []jen.Code
	for i, s := range f.Path[:len(f.Path)-1] {
		if s.Pointer {
			x := e.localName("v") + "." + pathTo(f, i+1)
			out = append(out, jen.If(jen.Id(x).Op("==").Nil()).Block(jen.Id(x).Op("=").New(e.typ(s.PtrTo))))
		}
	}
	return out
}

// setDefault assigns a field's default when the property is absent.
func (e *emitter) setDefault(t *schema.Type, dst string) []jen.Code {
	inner := t.Deref()
	var value jen.Code
	if inner.Rules.Defaults != nil {
		var items []jen.Code
		for _, v := range inner.Rules.Defaults {
			items = append(items, schema.Literal(v))
		}
		value = e.typ(inner.Go).Values(items...)
	} else {
		value = schema.Literal(*inner.Rules.Default)
	}
	switch t.Kind {
	case schema.ThreeStates:
		return []jen.Code{jen.Id(dst).Op("=").Qual(model.RuntimePath, "NotNull").Types(e.typ(inner.Go)).Call(value)}
	case schema.Pointer:
		// Point at a new value holding the default.
		return []jen.Code{jen.Id(dst).Op("=").New(e.typ(inner.Go)), jen.Op("*").Id(dst).Op("=").Add(value)}
	}
	return []jen.Code{jen.Id(dst).Op("=").Add(value)}
}

// decode emits statements that decode the next value into dst, an addressable expression of
// type t.Go, and check it against t's rules.
func (e *emitter) decode(t *schema.Type, dst string, depth int) []jen.Code {
	if t.Kind == schema.ThreeStates {
		// null, or a value decoded into a T of its own.
		x := e.temp("x", depth)
		body := []jen.Code{jen.Var().Id(x).Add(e.typ(t.Elem.Go))}
		body = append(body, e.decode(t.Elem, x, depth+1)...)
		body = append(body, jen.Id(bare(dst)).Op("=").Qual(model.RuntimePath, "NotNull").Call(jen.Id(x)))
		return []jen.Code{jen.If(e.d().Dot("Null").Call()).Block(
			jen.Id(bare(dst)).Op("=").Qual(model.RuntimePath, "Null").Types(e.typ(t.Elem.Go)).Call(),
		).Else().Block(body...)}
	}
	if t.Kind == schema.Pointer {
		// Point at a new value, then decode into it.
		body := []jen.Code{jen.Id(bare(dst)).Op("=").New(e.typ(t.Elem.Go))}
		body = append(body, e.decode(t.Elem, deref(dst), depth+1)...)
		if t.Nullable {
			return []jen.Code{jen.If(e.d().Dot("Null").Call()).Block(jen.Id(bare(dst)).Op("=").Nil()).Else().Block(body...)}
		}
		return body
	}
	stmts := e.decodeValue(t, dst, depth)
	if t.Nullable {
		// null leaves the zero value.
		return []jen.Code{jen.If(jen.Op("!").Add(e.d()).Dot("Null").Call()).Block(stmts...)}
	}
	return stmts
}

// reader is the decoder method that reads a scalar kind and the Go type it returns.
type reader struct {
	method, varName string
	goType          types.Type
}

var readers = map[schema.Kind]reader{
	schema.String:     {"String", "s", types.Typ[types.String]},
	schema.Bool:       {"Bool", "b", types.Typ[types.Bool]},
	schema.Int:        {"Int", "n", types.Typ[types.Int64]},
	schema.Uint:       {"Uint", "n", types.Typ[types.Uint64]},
	schema.Float:      {"Float", "f", types.Typ[types.Float64]},
	schema.Bytes:      {"Base64", "b", types.NewSlice(types.Typ[types.Byte])},
	schema.Any:        {"Any", "a", types.NewInterfaceType(nil, nil)},
	schema.JSONNumber: {"Number", "num", types.Typ[types.String]},
}

func (e *emitter) decodeValue(t *schema.Type, dst string, depth int) []jen.Code {
	switch t.Kind {
	case schema.Struct:
		return []jen.Code{jen.Id(e.id(t.Object, "Decode")).Call(e.d(), jen.Id(addr(dst)))}
	case schema.Slice:
		return e.decodeSlice(t, dst, depth)
	case schema.Array:
		return e.decodeArray(t, dst, depth)
	case schema.Map:
		return e.decodeMap(t, dst, depth)
	case schema.Text:
		// The type reads its own text; its rules (a pattern, an enum) apply to the text.
		text := e.temp("text", depth)
		body := schema.Checks(e, t, e.textSubject(text, "d"))
		body = append(body, jen.If(e.local("err").Op(":=").Id(dst).Dot("UnmarshalText").Call(jen.Id(text)), e.local("err").Op("!=").Nil()).Block(
			e.d().Dot("ReportError").Call(e.local("err"))))
		return []jen.Code{jen.If(jen.List(jen.Id(text), e.local("ok")).Op(":=").Add(e.d()).Dot("Text").Call(), e.local("ok")).Block(body...)}
	case schema.Custom:
		// The type reads its own JSON; its UnmarshalJSON is its validation.
		raw := e.temp("raw", depth)
		return []jen.Code{jen.If(jen.Id(raw).Op(":=").Add(e.d()).Dot("RawCopy").Call(), jen.Id(raw).Op("!=").Nil()).Block(
			jen.If(e.local("err").Op(":=").Id(dst).Dot("UnmarshalJSON").Call(jen.Id(raw)), e.local("err").Op("!=").Nil()).Block(e.d().Dot("ReportError").Call(e.local("err"))))}
	case schema.RawJSON:
		return []jen.Code{jen.Id(bare(dst)).Op("=").Add(e.d()).Dot("RawCopy").Call()}
	case schema.Duration:
		dur := e.temp("dur", depth)
		return []jen.Code{jen.If(jen.List(jen.Id(dur), e.local("ok")).Op(":=").Add(e.d()).Dot("Duration").Call(), e.local("ok")).Block(
			jen.Id(bare(dst)).Op("=").Id(dur))} // only time.Duration itself is a Duration
	}
	if t.Kind == schema.Bytes && !bytesType(t.Go) {
		// A slice of a named byte type ([]MyByte), which encoding/json also reads as base64:
		// []byte does not convert to it, so copy the bytes.
		b, list, i, x := e.temp("b", depth), e.temp("list", depth), e.temp("i", depth), e.temp("x", depth)
		elem := t.Go.Underlying().(*types.Slice).Elem()
		return []jen.Code{jen.If(jen.List(jen.Id(b), e.local("ok")).Op(":=").Add(e.d()).Dot("Base64").Call(), e.local("ok")).Block(
			jen.Id(list).Op(":=").Make(e.typ(t.Go), jen.Len(jen.Id(b))),
			jen.For(jen.List(jen.Id(i), jen.Id(x)).Op(":=").Range().Id(b)).Block(
				jen.Id(list).Index(jen.Id(i)).Op("=").Add(e.typ(elem)).Parens(jen.Id(x))),
			jen.Id(bare(dst)).Op("=").Id(list),
		)}
	}
	r, ok := readers[t.Kind]
	if !ok {
		panic(fmt.Sprintf("gen: no decoder for kind %d", t.Kind))
	}
	v := e.temp(r.varName, depth)
	method := r.method
	var args []jen.Code
	if t.Kind == schema.Float {
		args = append(args, jen.Lit(t.Bits))
	}
	ints := schema.NoIntLimits
	if t.Quoted {
		ints = schema.AllIntLimits // a quoted integer is read without its range: check it after
	}
	switch {
	case t.Quoted:
		method = "Quoted" + method
	case t.Kind == schema.Int || t.Kind == schema.Uint:
		// Every integer limit, from the type and the tags, in one call that names the
		// limit the value breaks.
		method, args = schema.IntegerRange(t).DecoderCall(t)
	}
	body := schema.Checks(e, t, schema.Subject{Expr: v, Type: r.goType, To: e.localName("d"), Ints: ints})
	body = append(body, jen.Id(bare(dst)).Op("=").Add(e.convert(jen.Id(v), r.goType, t.Go)))
	return []jen.Code{jen.If(jen.List(jen.Id(v), e.local("ok")).Op(":=").Add(e.d()).Dot(method).Call(args...), e.local("ok")).Block(body...)}
}

func (e *emitter) decodeSlice(t *schema.Type, dst string, depth int) []jen.Code {
	list, i := e.temp("list", depth), e.temp("i", depth)
	loop := []jen.Code{jen.Id(list).Op("=").Append(jen.Id(list), e.zero(t.Elem.Go))}
	loop = append(loop, e.decode(t.Elem, list+"["+i+"]", depth+1)...)
	body := []jen.Code{
		jen.Id(list).Op(":=").Add(e.typ(t.Go)).Values(),
		jen.For(jen.Id(i).Op(":=").Range().Add(e.d()).Dot("Elements")).Block(loop...),
	}
	body = append(body, schema.Checks(e, t, schema.Subject{Expr: list, Type: t.Go, To: e.localName("d"), Len: jen.Len(jen.Id(list))})...)
	body = append(body, jen.Id(bare(dst)).Op("=").Id(list))
	return []jen.Code{jen.If(e.d().Dot("Expect").Call(wire("Array"))).Block(body...)}
}

func (e *emitter) decodeArray(t *schema.Type, dst string, depth int) []jen.Code {
	count, i := e.temp("count", depth), e.temp("i", depth)
	loop := []jen.Code{
		jen.Id(count).Op("=").Id(i).Op("+").Lit(1),
		jen.If(jen.Id(i).Op(">=").Lit(int(t.Len))).Block(e.d().Dot("Skip").Call(), jen.Continue()),
	}
	loop = append(loop, e.decode(t.Elem, dst+"["+i+"]", depth+1)...)
	body := []jen.Code{
		jen.Id(count).Op(":=").Lit(0),
		jen.For(jen.Id(i).Op(":=").Range().Add(e.d()).Dot("Elements")).Block(loop...),
	}
	body = append(body, schema.Checks(e, t, schema.Subject{Expr: dst, Type: t.Go, To: e.localName("d"), Len: jen.Id(count)})...)
	return []jen.Code{jen.If(e.d().Dot("Expect").Call(wire("Array"))).Block(body...)}
}

func (e *emitter) decodeMap(t *schema.Type, dst string, depth int) []jen.Code {
	m, k, x := e.temp("m", depth), e.temp("k", depth), e.temp("x", depth)
	keyType := t.Go.Underlying().(*types.Map).Key()
	var loop []jen.Code
	var store jen.Code
	switch t.Key.Kind {
	case schema.Int, schema.Uint:
		// Integer keys as encoding/json reads them; the value is decoded either way.
		kn, method := e.temp("kn", depth), "IntKey"
		have := types.Typ[types.Int64]
		if t.Key.Kind == schema.Uint {
			method, have = "UintKey", types.Typ[types.Uint64]
		}
		loop = append(loop, jen.List(jen.Id(kn), e.local("keyOK")).Op(":=").Add(e.d()).Dot(method).Call(jen.Id(k), jen.Lit(t.Key.Bits)))
		store = jen.If(e.local("keyOK")).Block(jen.Id(m).Index(e.convert(jen.Id(kn), have, keyType)).Op("=").Id(x))
	default:
		store = jen.Id(m).Index(e.typ(keyType).Parens(jen.Id(k))).Op("=").Id(x)
	}
	loop = append(loop, jen.Var().Id(x).Add(e.typ(t.Elem.Go)))
	loop = append(loop, e.decode(t.Elem, x, depth+1)...)
	loop = append(loop, store)
	body := []jen.Code{
		jen.Id(m).Op(":=").Add(e.typ(t.Go)).Values(),
		jen.For(jen.Id(k).Op(":=").Range().Add(e.d()).Dot("Members")).Block(loop...),
	}
	body = append(body, schema.Checks(e, t, schema.Subject{Expr: m, Type: t.Go, To: e.localName("d"), Len: jen.Len(jen.Id(m))})...)
	body = append(body, jen.Id(bare(dst)).Op("=").Id(m))
	return []jen.Code{jen.If(e.d().Dot("Expect").Call(wire("Object"))).Block(body...)}
}

// bytesType reports whether a slice type converts to []byte: whether its elements are bytes,
// not of a named type whose underlying type is byte.
func bytesType(t types.Type) bool {
	return types.Identical(t.Underlying().(*types.Slice).Elem(), types.Typ[types.Byte])
}

// zero writes the zero value of a type.
func (e *emitter) zero(t types.Type) jen.Code {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return jen.Lit("")
		case u.Info()&types.IsBoolean != 0:
			return jen.False()
		default:
			return jen.Lit(0)
		}
	case *types.Struct, *types.Array:
		return e.typ(t).Values()
	}
	return jen.Nil()
}

// convert converts x from type have to type want when they differ.
func (e *emitter) convert(x jen.Code, have, want types.Type) jen.Code {
	if types.Identical(have, want) {
		return x
	}
	return e.typ(want).Parens(x)
}
