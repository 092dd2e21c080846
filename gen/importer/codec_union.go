package importer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The codecs of unions (unions.go): a struct of a field per JSON type encodes the one field
// set and decodes by the JSON type it finds; an interface of objects is encoded by the branch
// it holds and decoded into the branch the object's tag or properties choose. A value none
// of the branches takes is a problem at its path naming what was expected.

var jsonKinds = map[string]string{"string": "String", "integer": "Number", "number": "Number", "boolean": "Bool", "object": "Object", "array": "Array"}

// unionCodec writes encode, decode, MarshalJSON and UnmarshalJSON of a kUnion.
func (e *emitter) unionCodec(t *goType) {
	f := e.file
	v := jen.Id("v")
	var names []string
	count := []jen.Code{jen.Id("n").Op(":=").Lit(0)}
	var cases []jen.Code
	for _, m := range t.members {
		names = append(names, m.name)
		sel := v.Clone().Dot(m.name)
		count = append(count, jen.If(sel.Clone().Op("!=").Nil()).Block(jen.Id("n").Op("++")))
		x := sel.Clone()
		if !m.t.kind.nilable() {
			x = jen.Op("*").Add(sel.Clone())
		}
		cases = append(cases, jen.Case(sel.Clone().Op("!=").Nil()).Block(encodeValue(x, m.t, 0)...))
	}
	enc := append(count,
		jen.If(jen.Id("n").Op("!=").Lit(1)).Block(
			jen.Id("e").Dot("Fail").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit(t.name+": %d of its fields are set: set one of "+strings.Join(names, ", ")), jen.Id("n"))),
			jen.Id("e").Dot("Null").Call(),
			jen.Return(),
		),
		jen.Switch().Block(cases...),
	)
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("encode").Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(enc...)

	// Decoding: by the JSON type of the value; a number goes to Integer when it is whole and
	// the union has Number too.
	byKind := map[string][]*member{}
	var kinds []string
	var wanted []string
	for _, m := range t.members {
		k := jsonKinds[m.json]
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], m)
		wanted = append(wanted, m.json)
	}
	var dcases []jen.Code
	for _, k := range kinds {
		ms := byKind[k]
		body := decodeMember(ms[0])
		if len(ms) == 2 { // integer and number
			integer, number := ms[0], ms[1]
			if integer.json != "integer" {
				integer, number = number, integer
			}
			body = []jen.Code{jen.If(jen.Id("d").Dot("PeekInteger").Call()).Block(decodeMember(integer)...).Else().Block(decodeMember(number)...)}
		}
		dcases = append(dcases, jen.Case(jen.Qual(jsonwirePkg, k)).Block(body...))
	}
	dcases = append(dcases, jen.Default().Block(
		jen.Id("d").Dot("Report").Call(jen.Lit("expected "+orList(wanted)+", got ").Op("+").Id("d").Dot("Peek").Call().Dot("String").Call()),
		jen.Id("d").Dot("Skip").Call(),
	))
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("decode").Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(
		jen.Op("*").Id("v").Op("=").Id(t.name).Values(),
		jen.Switch(jen.Id("d").Dot("Peek").Call()).Block(dcases...),
	)
	e.jsonMethods(t)
}

// decodeMember decodes the value into a member of a kUnion.
func decodeMember(m *member) []jen.Code {
	sel := jen.Id("v").Dot(m.name)
	if m.t.kind.nilable() {
		return decodeValue(sel, m.t, 0)
	}
	p := jen.Id("p")
	return append(append([]jen.Code{p.Clone().Op(":=").New(goTypeOf(m.t))}, decodeValue(jen.Op("*").Add(p.Clone()), m.t, 0)...), sel.Op("=").Add(p.Clone()))
}

// ifaceCodec writes the functions that encode and decode a kIface, and UnmarshalX.
func (e *emitter) ifaceCodec(t *goType) {
	f := e.file
	var names []string
	var cases []jen.Code
	for _, b := range t.branches {
		names = append(names, b.t.name)
		cases = append(cases,
			jen.Case(jen.Id(b.t.name)).Block(jen.Id("v").Dot("encode").Call(jen.Id("e")), jen.Return()),
			jen.Case(jen.Op("*").Id(b.t.name)).Block(jen.If(jen.Id("v").Op("!=").Nil()).Block(jen.Id("v").Dot("encode").Call(jen.Id("e")), jen.Return())),
		)
	}
	f.Comment("encode" + t.name + " writes the branch v holds.")
	f.Func().Id("encode"+t.name).Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder"), jen.Id("v").Id(t.name)).Block(
		jen.Switch(jen.Id("v").Op(":=").Id("v").Assert(jen.Type())).Block(cases...),
		jen.Id("e").Dot("Fail").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit(t.name+" holds %T, none of "+strings.Join(names, ", ")), jen.Id("v"))),
		jen.Id("e").Dot("Null").Call(),
	)

	branchDecode := func(b *branch) []jen.Code {
		return []jen.Code{jen.Var().Id("v").Id(b.t.name), jen.Id("v").Dot("decode").Call(jen.Id("d")), jen.Return(jen.Id("v"))}
	}
	var body []jen.Code
	body = append(body, jen.If(jen.Op("!").Id("d").Dot("Expect").Call(jen.Qual(jsonwirePkg, "Object"))).Block(jen.Return(jen.Nil())))
	if t.tag != "" {
		var dcases []jen.Code
		var all []string
		for _, b := range t.branches {
			var vals []jen.Code
			for _, v := range b.values {
				vals = append(vals, jen.Lit(v))
				all = append(all, strconv.Quote(v))
			}
			dcases = append(dcases, jen.Case(vals...).Block(branchDecode(b)...))
		}
		body = append(body,
			jen.List(jen.Id("tag"), jen.Id("ok")).Op(":=").Id("d").Dot("PeekString").Call(jen.Lit(t.tag)),
			jen.Switch(jen.Id("tag")).Block(dcases...),
			jen.Id("got").Op(":=").Lit("none"),
			jen.If(jen.Id("ok")).Block(jen.Id("got").Op("=").Qual("strconv", "Quote").Call(jen.Id("tag"))),
			jen.Id("d").Dot("Report").Call(jen.Lit(fmt.Sprintf("%q must be %s, got ", t.tag, orList(all))).Op("+").Id("got")),
		)
	} else {
		var dcases []jen.Code
		var sets []string
		for _, b := range t.branches {
			var cond *jen.Statement
			var quoted []string
			for _, k := range b.required {
				has := jen.Id("d").Dot("PeekMember").Call(jen.Lit(k)).Op("!=").Nil()
				if cond == nil {
					cond = has
				} else {
					cond = cond.Op("&&").Add(has)
				}
				quoted = append(quoted, strconv.Quote(k))
			}
			sets = append(sets, andList(quoted))
			dcases = append(dcases, jen.Case(cond).Block(branchDecode(b)...))
		}
		body = append(body,
			jen.Switch().Block(dcases...),
			jen.Id("d").Dot("Report").Call(jen.Lit("expected an object with "+strings.Join(sets, ", or with "))),
		)
	}
	body = append(body, jen.Id("d").Dot("Skip").Call(), jen.Return(jen.Nil()))
	f.Comment("decode" + t.name + " reads the branch the object is.")
	f.Func().Id("decode" + t.name).Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Id(t.name).Block(body...)

	f.Add(comment("Unmarshal" + t.name + " decodes a " + t.name + " from JSON of the server's schema."))
	f.Func().Id("Unmarshal"+t.name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(t.name), jen.Error()).Block(
		jen.Var().Id("v").Id(t.name),
		jen.Id("err").Op(":=").Id("decodeJSON").Call(jen.Id("data"), jen.Func().Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(jen.Id("v").Op("=").Id("decode"+t.name).Call(jen.Id("d")))),
		jen.Return(jen.Id("v"), jen.Id("err")),
	)
}

// orList joins words as "a, b or c".
func orList(words []string) string { return joinLast(words, " or ") }

// andList joins words as "a, b and c".
func andList(words []string) string { return joinLast(words, " and ") }

func joinLast(words []string, last string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + last + words[len(words)-1]
}

// oneOfCodec writes encode, decode, MarshalJSON and UnmarshalJSON of a kOneOf: the branch
// set is encoded; decoding sets the branch the object's tag or properties choose.
func (e *emitter) oneOfCodec(t *goType) {
	f := e.file
	v := jen.Id("v")
	var names []string
	count := []jen.Code{jen.Id("n").Op(":=").Lit(0)}
	var cases []jen.Code
	for _, b := range t.branches {
		names = append(names, b.t.name)
		sel := v.Clone().Dot(b.t.name)
		count = append(count, jen.If(sel.Clone().Op("!=").Nil()).Block(jen.Id("n").Op("++")))
		cases = append(cases, jen.Case(sel.Clone().Op("!=").Nil()).Block(sel.Clone().Dot("encode").Call(jen.Id("e"))))
	}
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("encode").Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(append(count,
		jen.If(jen.Id("n").Op("!=").Lit(1)).Block(
			jen.Id("e").Dot("Fail").Call(jen.Qual("fmt", "Errorf").Call(jen.Lit(t.name+": %d of its fields are set: set one of "+strings.Join(names, ", ")), jen.Id("n"))),
			jen.Id("e").Dot("Null").Call(),
			jen.Return(),
		),
		jen.Switch().Block(cases...),
	)...)

	branchDecode := func(b *branch) []jen.Code {
		return []jen.Code{jen.Id("x").Op(":=").New(jen.Id(b.t.name)), jen.Id("x").Dot("decode").Call(jen.Id("d")), v.Clone().Dot(b.t.name).Op("=").Id("x"), jen.Return()}
	}
	body := []jen.Code{
		jen.Op("*").Id("v").Op("=").Id(t.name).Values(),
		jen.If(jen.Op("!").Id("d").Dot("Expect").Call(jen.Qual(jsonwirePkg, "Object"))).Block(jen.Return()),
	}
	if t.tag != "" {
		var dcases []jen.Code
		var all []string
		for _, b := range t.branches {
			var vals []jen.Code
			for _, val := range b.values {
				vals = append(vals, jen.Lit(val))
				all = append(all, strconv.Quote(val))
			}
			dcases = append(dcases, jen.Case(vals...).Block(branchDecode(b)...))
		}
		body = append(body,
			jen.List(jen.Id("tag"), jen.Id("ok")).Op(":=").Id("d").Dot("PeekString").Call(jen.Lit(t.tag)),
			jen.Switch(jen.Id("tag")).Block(dcases...),
			jen.Id("got").Op(":=").Lit("none"),
			jen.If(jen.Id("ok")).Block(jen.Id("got").Op("=").Qual("strconv", "Quote").Call(jen.Id("tag"))),
			jen.Id("d").Dot("Report").Call(jen.Lit(fmt.Sprintf("%q must be %s, got ", t.tag, orList(all))).Op("+").Id("got")),
		)
	} else {
		var dcases []jen.Code
		var sets []string
		for _, b := range t.branches {
			var cond *jen.Statement
			var quoted []string
			for _, k := range b.required {
				has := jen.Id("d").Dot("PeekMember").Call(jen.Lit(k)).Op("!=").Nil()
				if cond == nil {
					cond = has
				} else {
					cond = cond.Op("&&").Add(has)
				}
				quoted = append(quoted, strconv.Quote(k))
			}
			sets = append(sets, andList(quoted))
			dcases = append(dcases, jen.Case(cond).Block(branchDecode(b)...))
		}
		body = append(body,
			jen.Switch().Block(dcases...),
			jen.Id("d").Dot("Report").Call(jen.Lit("expected an object with "+strings.Join(sets, ", or with "))),
		)
	}
	body = append(body, jen.Id("d").Dot("Skip").Call())
	f.Func().Params(v.Clone().Op("*").Id(t.name)).Id("decode").Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(body...)
	e.jsonMethods(t)
}
