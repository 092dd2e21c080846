package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated result checkers: before a tool's structured result is encoded, generated
// code checks the Go value against the rules of its output schema that the Go type alone does
// not guarantee (an enum, a length, a pattern, a bound tighter than the type's, item counts,
// uniqueness, a required pointer). A result that breaks them becomes an error result, so
// structuredContent always matches the outputSchema. Types without such rules get no checker
// and cost nothing.

// checked computes which structs need a checker: those with rules of their own, and those
// that reach one that does. It is a fixpoint, since structs may refer to each other in cycles.
func checked(objs []*schema.Object) map[*schema.Object]bool {
	need := map[*schema.Object]bool{}
	for changed := true; changed; {
		changed = false
		for _, o := range objs {
			if need[o] {
				continue
			}
			if anyField(o, func(f *schema.Field) bool { return fieldNeedsCheck(f, need) }) || o.Rest != nil && needsCheck(o.Rest.Type.Elem, need) {
				need[o], changed = true, true
			}
		}
	}
	return need
}

func anyField(o *schema.Object, pred func(*schema.Field) bool) bool {
	for _, f := range o.Fields {
		if pred(f) {
			return true
		}
	}
	return false
}

// fieldNeedsCheck reports whether a field's value can break its schema.
func fieldNeedsCheck(f *schema.Field, need map[*schema.Object]bool) bool {
	return requiredPointer(f) || needsCheck(f.Type, need)
}

// requiredPointer is a pointer field the schema requires: nil would be written as null.
func requiredPointer(f *schema.Field) bool {
	return f.Required && f.Type.Kind == schema.Pointer && !f.Type.Nullable
}

func needsCheck(t *schema.Type, need map[*schema.Object]bool) bool {
	switch t.Kind {
	case schema.Pointer, schema.ThreeStates:
		return needsCheck(t.Elem, need)
	case schema.Struct:
		return need[t.Object]
	case schema.Slice, schema.Array, schema.Map:
		return schema.HasChecks(t, listSubject(t, "v", "c")) || needsCheck(t.Elem, need)
	case schema.String, schema.Text, schema.Bool, schema.Int, schema.Uint, schema.Float:
		return schema.HasChecks(t, schema.Subject{Expr: "v", Type: t.Go, To: "c", Ints: schema.TagIntLimits})
	}
	return false
}

// listSubject is a list or a map in a result, to check: an array has the length of its type.
func listSubject(t *schema.Type, src, to string) schema.Subject {
	s := schema.Subject{Expr: src, Type: t.Go, To: to}
	if t.Kind != schema.Array {
		s.Len = jen.Len(jen.Id(bare(src)))
	}
	return s
}

// checker emits the check function of a struct.
func (e *emitter) checker(o *schema.Object, need map[*schema.Object]bool) jen.Code {
	c := func() *jen.Statement { return e.local("c") }
	var body []jen.Code
	for _, f := range o.Fields {
		src := e.localName("v") + "." + fieldPath(f)
		var stmts []jen.Code
		if requiredPointer(f) {
			stmts = append(stmts, jen.If(jen.Id(src).Op("==").Nil()).Block(c().Dot("Report").Call(jen.Lit("must not be null"))))
		}
		if f.Type.Kind == schema.Pointer && f.OmitOut != schema.OmitNever {
			stmts = append(stmts, e.check(f.Type.Elem, deref(src), 1, need)...) // the guard rules out nil
		} else {
			stmts = append(stmts, e.check(f.Type, src, 0, need)...)
		}
		if len(stmts) == 0 {
			continue
		}
		stmts = append([]jen.Code{c().Dot("Enter").Call(jen.Lit(f.Name))}, append(stmts, c().Dot("Leave").Call())...)
		body = append(body, e.guard(f, src, stmts)...)
	}
	if r := o.Rest; r != nil && needsCheck(r.Type.Elem, need) {
		// The values, under their keys, as the encoder writes them.
		src := e.localName("v") + "." + fieldPath(r)
		k, x := e.localName("k"), e.localName("x")
		keyType := r.Type.Go.Underlying().(*types.Map).Key()
		loop := []jen.Code{c().Dot("Enter").Call(e.convert(jen.Id(k), keyType, types.Typ[types.String])), jen.Id(x).Op(":=").Id(src).Index(jen.Id(k))}
		loop = append(loop, e.check(r.Type.Elem, x, 1, need)...)
		loop = append(loop, c().Dot("Leave").Call())
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id(src)))).Block(loop...))
	}
	name := e.id(o, "Check")
	return jen.Comment(fmt.Sprintf("%s checks a value of type %s against the rules of its schema, before it is sent.", name, o.DisplayName())).Line().
		Func().Id(name).Params(e.local("c").Op("*").Add(wire("Checker")), e.local("v").Op("*").Add(e.typ(o.Go))).Block(body...)
}

// check emits the checks of the value of src, an expression of type t.Go.
func (e *emitter) check(t *schema.Type, src string, depth int, need map[*schema.Object]bool) []jen.Code {
	if !needsCheck(t, need) {
		return nil
	}
	c := func() *jen.Statement { return e.local("c") }
	switch t.Kind {
	case schema.Pointer:
		return []jen.Code{jen.If(jen.Id(src).Op("!=").Nil()).Block(e.check(t.Elem, deref(src), depth+1, need)...)}
	case schema.ThreeStates:
		x := e.temp("x", depth)
		return []jen.Code{jen.If(jen.List(jen.Id(x), e.local("ok")).Op(":=").Id(src).Dot("Get").Call(), e.local("ok")).Block(
			e.check(t.Elem, x, depth+1, need)...)}
	case schema.Struct:
		return []jen.Code{jen.Id(e.id(t.Object, "Check")).Call(c(), jen.Id(addr(src)))}
	case schema.Slice, schema.Array:
		out := schema.Checks(e, t, listSubject(t, src, e.localName("c")))
		if needsCheck(t.Elem, need) {
			i := e.temp("i", depth)
			loop := []jen.Code{c().Dot("EnterIndex").Call(jen.Id(i))}
			loop = append(loop, e.check(t.Elem, src+"["+i+"]", depth+1, need)...)
			loop = append(loop, c().Dot("Leave").Call())
			out = append(out, jen.For(jen.Id(i).Op(":=").Range().Id(bare(src))).Block(loop...))
		}
		return out
	case schema.Map:
		out := schema.Checks(e, t, listSubject(t, src, e.localName("c")))
		if needsCheck(t.Elem, need) {
			// In the order the encoder writes the keys, so that problems come out in order.
			k, x := e.temp("k", depth), e.temp("x", depth)
			keyType := t.Go.Underlying().(*types.Map).Key()
			keys := jen.Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id(bare(src))))
			name := e.convert(jen.Id(k), keyType, types.Typ[types.String])
			if t.Key.Kind != schema.String {
				keys = wire("IntKeys").Call(jen.Id(bare(src)))
				name = jen.Qual("fmt", "Sprint").Call(jen.Id(k))
			}
			loop := []jen.Code{c().Dot("Enter").Call(name), jen.Id(x).Op(":=").Id(src).Index(jen.Id(k))}
			loop = append(loop, e.check(t.Elem, x, depth+1, need)...)
			loop = append(loop, c().Dot("Leave").Call())
			out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(keys)).Block(loop...))
		}
		return out
	case schema.Text:
		// The rules apply to the text the type writes.
		text := e.temp("text", depth)
		return []jen.Code{jen.If(jen.List(jen.Id(text), e.local("err")).Op(":=").Id(src).Dot("MarshalText").Call(), e.local("err").Op("==").Nil()).Block(
			schema.Checks(e, t, e.textSubject(text, "c"))...)}
	}
	return schema.Checks(e, t, schema.Subject{Expr: src, Type: t.Go, To: e.localName("c"), Ints: schema.TagIntLimits})
}
