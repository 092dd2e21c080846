package importer

import (
	"fmt"
	"go/ast"
	"go/parser"

	"github.com/dave/jennifer/jen"
)

// The codec of each declared struct: encode and decode over runtime/jsonwire, written out
// field by field, and MarshalJSON and UnmarshalJSON on top for users' convenience.

func (e *emitter) structCodec(t *goType) {
	need, known := e.codecs[t]
	if !known {
		need = codecs{encode: true, decode: true}
	}
	if need.encode {
		e.structEncode(t)
	}
	if need.decode {
		e.structDecode(t)
	}
	if !e.openapi { // mcpgen's generator reads a struct with MarshalJSON as a type of its own
		e.jsonMethods(t)
	}
}

func (e *emitter) structEncode(t *goType) {
	f := e.file
	v := jen.Id("v")
	var enc []jen.Code
	enc = append(enc, jen.Id("e").Dot("ObjectStart").Call())
	for _, fl := range t.fields {
		enc = append(enc, encodeField(fl)...)
	}
	if t.extra != nil {
		enc = append(enc, encodeExtra(t)...)
	}
	enc = append(enc, jen.Id("e").Dot("ObjectEnd").Call())
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("encode").Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(enc...)
}

func (e *emitter) structDecode(t *goType) {
	var cases []jen.Code
	for _, fl := range t.fields {
		cases = append(cases, jen.Case(jen.Lit(fl.key)).Block(decodeField(fl)...))
	}
	other := []jen.Code{jen.Id("d").Dot("Skip").Call()}
	if t.extra != nil {
		extra := jen.Id("v").Dot(t.extraName)
		other = append(decodeElem(jen.Id("x"), t.extraMap(), -1),
			jen.If(extra.Clone().Op("==").Nil()).Block(extra.Clone().Op("=").Add(goTypeOf(t.extraMap())).Values()),
			extra.Clone().Index(jen.String().Parens(jen.Id("key"))).Op("=").Id("x"))
	}
	cases = append(cases, jen.Default().Block(other...))
	e.file.Func().Params(jen.Id("v").Op("*").Id(t.name)).Id("decode").Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(
		jen.For(jen.Id("key").Op(":=").Range().Id("d").Dot("Members")).Block(
			jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...),
		),
	)
}

// encodeExtra writes the members of a struct's additionalProperties map, in order; one that
// is a property of the struct is an error rather than a member written twice.
func encodeExtra(t *goType) []jen.Code {
	var own []jen.Code
	for _, fl := range t.fields {
		own = append(own, jen.Lit(fl.key))
	}
	k, x := jen.Id("k"), jen.Id("x")
	loop := []jen.Code{}
	if len(own) > 0 {
		loop = append(loop, jen.Switch(k.Clone()).Block(jen.Case(own...).Block(
			jen.Id("e").Dot("Fail").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit(t.name+"."+t.extraName+" has %q, which is a property of its own"), k.Clone())),
			jen.Continue())))
	}
	loop = append(loop, jen.Id("e").Dot("Key").Call(k.Clone()), x.Clone().Op(":=").Id("v").Dot(t.extraName).Index(k.Clone()))
	loop = append(loop, encodeElem(x, t.extraMap(), -1)...)
	return []jen.Code{jen.For(jen.Id("_").Op(",").Add(k.Clone()).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id("v").Dot(t.extraName)))).Block(loop...)}
}

// jsonMethods writes MarshalJSON and UnmarshalJSON over a struct's encode and decode.
func (e *emitter) jsonMethods(t *goType) {
	f := e.file
	v := jen.Id("v")
	f.Comment("MarshalJSON encodes the value as the server's schema has it.")
	f.Func().Params(v.Clone().Id(t.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Var().Id("e").Qual(jsonwirePkg, "Encoder"),
		jen.Id("v").Dot("encode").Call(jen.Op("&").Id("e")),
		jen.Return(jen.Id("e").Dot("Bytes").Call(), jen.Id("e").Dot("Err").Call()),
	)
	f.Comment("UnmarshalJSON decodes the value from JSON of the server's schema.")
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Id("decodeJSON").Call(jen.Id("data"), jen.Id("v").Dot("decode"))),
	)
}

// encodeField writes one member, or nothing for an optional field that is unset.
func encodeField(fl *field) []jen.Code {
	key := jen.Id("e").Dot("Key").Call(jen.Lit(fl.key))
	if fl.fixed {
		return []jen.Code{key, jen.Id("e").Dot("String").Call(jen.Lit(fl.value))}
	}
	sel := jen.Id("v").Dot(fl.name)
	switch {
	case fl.threeStates():
		// The value, else null unless left out; a struct within itself is held by pointer,
		// and a nil one is null.
		x, ok, null := jen.Id("x"), jen.Id("ok"), sel.Clone().Dot("IsNull").Call()
		if fl.recursive {
			x, ok, null = jen.Op("*").Add(x), jen.Id("ok").Op("&&").Id("x").Op("!=").Nil(), jen.Op("!").Add(sel.Clone()).Dot("IsZero").Call()
		}
		return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(sel.Clone()).Dot("Get").Call(), ok).Block(
			append([]jen.Code{key}, encodeValue(x, fl.t, 0)...)...).
			Else().If(null).Block(key.Clone(), jen.Id("e").Dot("Null").Call())}
	case fl.pointer():
		body := []jen.Code{key}
		body = append(body, encodeValue(jen.Op("*").Add(sel.Clone()), fl.t, 0)...)
		if !fl.optional { // required but nullable: null when unset
			return []jen.Code{jen.If(sel.Clone().Op("!=").Nil()).Block(body...).Else().Block(key.Clone(), jen.Id("e").Dot("Null").Call())}
		}
		return []jen.Code{jen.If(sel.Clone().Op("!=").Nil()).Block(body...)}
	case fl.optional && fl.t.kind.nilable():
		return []jen.Code{jen.If(sel.Clone().Op("!=").Nil()).Block(append([]jen.Code{key}, encodeValue(sel.Clone(), fl.t, 0)...)...)}
	case fl.nullable && (fl.t.kind == kIface || fl.t.kind == kSlice || fl.t.kind == kMap || fl.t.kind == kBytes):
		// Required but nullable: null when nil (decoding [] or {} makes an empty one, not nil).
		return []jen.Code{key, jen.If(sel.Clone().Op("!=").Nil()).Block(encodeValue(sel.Clone(), fl.t, 0)...).Else().Block(jen.Id("e").Dot("Null").Call())}
	}
	return append([]jen.Code{key}, encodeValue(sel.Clone(), fl.t, 0)...)
}

// encodeValue writes the value x of type t.
func encodeValue(x *jen.Statement, t *goType, depth int) []jen.Code {
	e := jen.Id("e")
	switch t.kind {
	case kString:
		return []jen.Code{e.Dot("String").Call(x)}
	case kInt:
		return []jen.Code{e.Dot("Int").Call(x)}
	case kFloat:
		return []jen.Code{e.Dot("Float").Call(x, jen.Lit(64))}
	case kBool:
		return []jen.Code{e.Dot("Bool").Call(x)}
	case kTime:
		return []jen.Code{e.Dot("MarshaledText").Call(operand(x).Dot("MarshalText").Call())}
	case kRaw:
		return []jen.Code{e.Dot("RawJSON").Call(x)}
	case kBytes:
		return []jen.Code{e.Dot("Base64").Call(x)}
	case kEnum:
		return []jen.Code{e.Dot("String").Call(jen.String().Parens(x))}
	case kStruct, kUnion, kOneOf:
		return []jen.Code{operand(x).Dot("encode").Call(e)}
	case kIface:
		return []jen.Code{jen.Id("encode"+t.name).Call(e, x)}
	case kSlice:
		item := jen.Id(fmt.Sprintf("x%d", depth))
		loop := append([]jen.Code{e.Clone().Dot("Elem").Call()}, encodeElem(item, t, depth)...)
		return []jen.Code{
			e.Clone().Dot("ArrayStart").Call(),
			jen.For(jen.Id("_").Op(",").Add(item.Clone()).Op(":=").Range().Add(x)).Block(loop...),
			e.Clone().Dot("ArrayEnd").Call(),
		}
	case kMap:
		k := jen.Id(fmt.Sprintf("k%d", depth))
		item := jen.Id(fmt.Sprintf("x%d", depth))
		loop := []jen.Code{
			e.Clone().Dot("Key").Call(k.Clone()),
			item.Clone().Op(":=").Parens(x.Clone()).Index(k.Clone()),
		}
		loop = append(loop, encodeElem(item, t, depth)...)
		// Keys in order, so that the same value is the same bytes.
		return []jen.Code{
			e.Clone().Dot("ObjectStart").Call(),
			jen.For(jen.Id("_").Op(",").Add(k.Clone()).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(x))).Block(loop...),
			e.Clone().Dot("ObjectEnd").Call(),
		}
	}
	panic("importer: no encoding for kind")
}

// encodeElem writes the element x of the kSlice or kMap t: null for a nil one when its
// elements may be null.
func encodeElem(x *jen.Statement, t *goType, depth int) []jen.Code {
	switch {
	case !t.nullElem:
		return encodeValue(x.Clone(), t.elem, depth+1)
	case t.elemPointer():
		return []jen.Code{jen.If(x.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(encodeValue(jen.Op("*").Add(x.Clone()), t.elem, depth+1)...)}
	}
	return []jen.Code{jen.If(x.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(encodeValue(x.Clone(), t.elem, depth+1)...)}
}

// decodeElem declares x, an element of the kSlice or kMap t, and reads it: a null one stays
// nil when its elements may be null.
func decodeElem(x *jen.Statement, t *goType, depth int) []jen.Code {
	d := jen.Id("d")
	switch {
	case !t.nullElem:
		return append([]jen.Code{jen.Var().Add(x.Clone()).Add(goTypeOf(t.elem))}, decodeValue(x.Clone(), t.elem, depth+1)...)
	case t.elemPointer():
		return []jen.Code{
			jen.Var().Add(x.Clone()).Op("*").Add(goTypeOf(t.elem)),
			jen.If(jen.Op("!").Add(d.Clone()).Dot("Null").Call()).Block(append([]jen.Code{x.Clone().Op("=").New(goTypeOf(t.elem))},
				decodeValue(jen.Op("*").Add(x.Clone()), t.elem, depth+1)...)...),
		}
	}
	return []jen.Code{
		jen.Var().Add(x.Clone()).Add(goTypeOf(t.elem)),
		jen.If(jen.Op("!").Add(d.Clone()).Dot("Null").Call()).Block(decodeValue(x.Clone(), t.elem, depth+1)...),
	}
}

// operand is x as the operand of a selector: in parentheses unless it is a name or a
// selector (x.encode(e), v.Point.encode(e), (*v.P).encode(e)).
func operand(x *jen.Statement) *jen.Statement {
	expr, err := parser.ParseExpr(fmt.Sprintf("%#v", x))
	for err == nil {
		switch e := expr.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			expr = e.X
			continue
		}
		break
	}
	return jen.Parens(x)
}

// decodeField reads one member into its field.
func decodeField(fl *field) []jen.Code {
	if fl.fixed {
		return []jen.Code{jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Id("d").Dot("String").Call(), jen.Id("ok").Op("&&").Id("s").Op("!=").Lit(fl.value)).Block(
			jen.Id("d").Dot("Report").Call(jen.Lit(fmt.Sprintf("must be %q", fl.value))))}
	}
	sel := jen.Id("v").Dot(fl.name)
	if fl.threeStates() {
		x := jen.Id("x")
		var value []jen.Code
		if fl.recursive {
			value = append([]jen.Code{x.Clone().Op(":=").New(goTypeOf(fl.t))}, decodeValue(jen.Op("*").Add(x.Clone()), fl.t, 0)...)
		} else {
			value = append([]jen.Code{jen.Var().Add(x.Clone()).Add(goTypeOf(fl.t))}, decodeValue(x.Clone(), fl.t, 0)...)
		}
		return []jen.Code{jen.If(jen.Id("d").Dot("Null").Call()).Block(sel.Clone().Op("=").Qual(mcpPkg, "Null").Types(fieldValueType(fl)).Call()).Else().Block(
			append(value, sel.Clone().Op("=").Qual(mcpPkg, "NotNull").Call(x.Clone()))...)}
	}
	if fl.t.kind == kIface && (fl.optional || fl.nullable) {
		return []jen.Code{jen.If(jen.Id("d").Dot("Null").Call()).Block(sel.Clone().Op("=").Nil()).Else().Block(decodeValue(sel, fl.t, 0)...)}
	}
	if !fl.pointer() {
		return decodeValue(sel, fl.t, 0)
	}
	p := jen.Id("p")
	return []jen.Code{
		jen.If(jen.Id("d").Dot("Null").Call()).Block(sel.Clone().Op("=").Nil()).Else().Block(append(append(
			[]jen.Code{p.Clone().Op(":=").New(goTypeOf(fl.t))},
			decodeValue(jen.Op("*").Add(p.Clone()), fl.t, 0)...),
			sel.Clone().Op("=").Add(p.Clone()))...),
	}
}

// decodeValue reads a value of type t into the addressable x.
func decodeValue(x *jen.Statement, t *goType, depth int) []jen.Code {
	d := jen.Id("d")
	scalar := func(call jen.Code, conv func(jen.Code) jen.Code) []jen.Code {
		return []jen.Code{jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Add(call), jen.Id("ok")).Block(x.Clone().Op("=").Add(conv(jen.Id("s"))))}
	}
	same := func(c jen.Code) jen.Code { return c }
	switch t.kind {
	case kString:
		return scalar(d.Dot("String").Call(), same)
	case kInt:
		return scalar(d.Dot("Int").Call(), same)
	case kFloat:
		return scalar(d.Dot("Float").Call(jen.Lit(64)), same)
	case kBool:
		return scalar(d.Dot("Bool").Call(), same)
	case kEnum:
		return scalar(d.Dot("String").Call(), func(c jen.Code) jen.Code { return jen.Id(t.name).Call(c) })
	case kTime:
		return []jen.Code{jen.If(jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Add(d.Clone().Dot("String").Call()), jen.Id("ok")).Block(
			jen.If(jen.List(jen.Id("t"), jen.Err()).Op(":=").Qual("time", "Parse").Call(jen.Qual("time", "RFC3339Nano"), jen.Id("s")), jen.Err().Op("!=").Nil()).Block(
				d.Clone().Dot("Report").Call(jen.Lit("must be a date-time (RFC 3339)")),
			).Else().Block(x.Clone().Op("=").Id("t")),
		)}
	case kRaw:
		return []jen.Code{x.Clone().Op("=").Add(d.Clone().Dot("RawCopy").Call())}
	case kBytes:
		return scalar(d.Dot("Base64").Call(), same)
	case kStruct, kUnion, kOneOf:
		return []jen.Code{operand(x).Dot("decode").Call(d)}
	case kIface:
		return []jen.Code{x.Clone().Op("=").Id("decode" + t.name).Call(d)}
	case kSlice:
		item := jen.Id(fmt.Sprintf("x%d", depth))
		loop := append(decodeElem(item, t, depth), x.Clone().Op("=").Append(x.Clone(), item.Clone()))
		return []jen.Code{jen.If(d.Clone().Dot("Null").Call()).Block(x.Clone().Op("=").Nil()).Else().Block(
			x.Clone().Op("=").Add(goTypeOf(t)).Values(),
			jen.For(jen.Range().Add(d.Clone()).Dot("Elements")).Block(loop...),
		)}
	case kMap:
		k := jen.Id(fmt.Sprintf("k%d", depth))
		item := jen.Id(fmt.Sprintf("x%d", depth))
		loop := append(decodeElem(item, t, depth), jen.Parens(x.Clone()).Index(jen.String().Parens(k.Clone())).Op("=").Add(item.Clone()))
		return []jen.Code{jen.If(d.Clone().Dot("Null").Call()).Block(x.Clone().Op("=").Nil()).Else().Block(
			x.Clone().Op("=").Add(goTypeOf(t)).Values(),
			jen.For(k.Clone().Op(":=").Range().Add(d.Clone()).Dot("Members")).Block(loop...),
		)}
	}
	panic("importer: no decoding for kind")
}
