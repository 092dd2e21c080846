package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/types"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// The generated codec: for every struct an argument uses, a function that decodes it from
// JSON and validates it against its schema, field by field, collecting every problem; for
// every struct a result uses, a function that encodes it. Values are read and written
// through runtime/jsonwire, with no reflection.
//
// Go expressions are passed around as strings ("v.City", "list[i]", "(*p)"): generated
// code names only its own locals and the user's fields.

func jsonIndent(b *bytes.Buffer, src []byte) {
	if err := json.Indent(b, src, "", "  "); err != nil {
		panic(err)
	}
}

func wire(name string) *jen.Statement { return jen.Qual(JSONWirePath, name) }

func d() *jen.Statement { return jen.Id("d") }

// addr returns the address of an expression; deref wraps one so it can be indexed.
func addr(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") {
		return x[2 : len(x)-1]
	}
	return "&" + x
}

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
func temp(name string, depth int) string {
	if depth == 0 {
		return name
	}
	return name + strconv.Itoa(depth)
}

// decoder emits the decode function of a struct.
func (e *emitter) decoder(o *schema.Object) jen.Code {
	var body []jen.Code
	body = append(body, jen.If(jen.Op("!").Add(d()).Dot("Expect").Call(wire("Object"))).Block(jen.Return()))

	var flags []jen.Code
	var cases []jen.Code
	var after []jen.Code
	var known []string
	for _, f := range o.Fields {
		known = append(known, strconv.Quote(f.Name))
		dst := "v." + fieldPath(f)
		var stmts []jen.Code
		flag := "has" + flagName(f)
		track := f.Required || f.Type.Deref().Rules.Default != nil
		if track {
			flags = append(flags, jen.Id(flag))
			stmts = append(stmts, jen.Id(flag).Op("=").True())
		}
		stmts = append(stmts, e.allocEmbedded(f)...)
		if !f.Required && !f.Type.Nullable && !f.Type.Deref().Nullable && f.Type.Deref().Kind != schema.Any {
			// Models often send null for an argument they mean to leave out: tell them how.
			stmts = append(stmts, jen.If(d().Dot("Null").Call()).Block(report("must not be null; leave the property out instead"), jen.Continue()))
		}
		stmts = append(stmts, e.decode(f.Type, dst, 0)...)
		cases = append(cases, jen.Case(jen.Lit(f.Name)).Block(stmts...))
		switch {
		case f.Required:
			after = append(after, jen.If(jen.Op("!").Id(flag)).Block(d().Dot("ReportMissing").Call(jen.Lit(f.Name))))
		case track:
			after = append(after, jen.If(jen.Op("!").Id(flag)).Block(append(e.allocEmbedded(f), e.setDefault(f.Type, dst)...)...))
		}
	}
	unknown := "unknown property; this object has no properties"
	if len(known) > 0 {
		unknown = "unknown property; expected one of " + strings.Join(known, ", ")
	}
	cases = append(cases, jen.Default().Block(d().Dot("Report").Call(jen.Lit(unknown)), d().Dot("Skip").Call()))

	if len(flags) > 0 {
		body = append(body, jen.Var().List(flags...).Bool())
	}
	if len(o.Fields) == 0 {
		body = append(body, jen.For(jen.Range().Add(d()).Dot("Members")).Block(
			d().Dot("Report").Call(jen.Lit(unknown)), d().Dot("Skip").Call()))
	} else {
		body = append(body, jen.For(jen.Id("key").Op(":=").Range().Add(d()).Dot("Members")).Block(
			jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...)))
	}
	body = append(body, after...)
	name := genPrefix + "Decode" + o.Name
	return jen.Comment(fmt.Sprintf("%s decodes a value of type %s and checks it against its schema.", name, displayName(o))).Line().
		Func().Id(name).Params(jen.Id("d").Op("*").Add(wire("Decoder")), jen.Id("v").Op("*").Add(e.typ(o.Go))).Block(body...)
}

func displayName(o *schema.Object) string {
	if n, ok := types.Unalias(o.Go).(*types.Named); ok {
		return n.Obj().Name()
	}
	return "struct"
}

// fieldPath is the selector chain from a struct value to a (possibly promoted) field.
func fieldPath(f *schema.Field) string {
	names := make([]string, len(f.Path))
	for i, s := range f.Path {
		names[i] = s.Name
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
		if !s.Pointer {
			continue
		}
		names := make([]string, i+1)
		for j := range names {
			names[j] = f.Path[j].Name
		}
		x := "v." + strings.Join(names, ".")
		out = append(out, jen.If(jen.Id(x).Op("==").Nil()).Block(jen.Id(x).Op("=").New(e.typ(s.PtrTo))))
	}
	return out
}

// setDefault assigns a field's default when the property is absent.
func (e *emitter) setDefault(t *schema.Type, dst string) []jen.Code {
	inner := t.Deref()
	lit := literal(*inner.Rules.Default)
	if t.Kind != schema.Pointer {
		return []jen.Code{jen.Id(dst).Op("=").Add(lit)}
	}
	// A pointer field: point at a fresh variable holding the default.
	return []jen.Code{jen.Block(
		jen.Id("def").Op(":=").Add(e.typ(t.Elem.Go)).Parens(lit),
		jen.Id(dst).Op("=").Op("&").Id("def"),
	)}
}

func literal(v schema.Value) jen.Code {
	if s, ok := v.Lit.(string); ok {
		return jen.Lit(s)
	}
	return jen.Op(v.JSON) // numbers and booleans: the JSON text is a valid untyped Go constant
}

// decode emits statements that decode the next value into dst, an addressable expression of
// type t.Go, and check it against t's rules.
func (e *emitter) decode(t *schema.Type, dst string, depth int) []jen.Code {
	if t.Kind == schema.Pointer {
		// Point at a new value, then decode into it.
		body := []jen.Code{jen.Id(bare(dst)).Op("=").New(e.typ(t.Elem.Go))}
		body = append(body, e.decode(t.Elem, deref(dst), depth+1)...)
		if t.Nullable {
			return []jen.Code{jen.If(d().Dot("Null").Call()).Block(jen.Id(bare(dst)).Op("=").Nil()).Else().Block(body...)}
		}
		return body
	}
	stmts := e.decodeValue(t, dst, depth)
	if t.Nullable {
		// null leaves the zero value.
		return []jen.Code{jen.If(jen.Op("!").Add(d()).Dot("Null").Call()).Block(stmts...)}
	}
	return stmts
}

// scalarReaders are the decoder methods that read each scalar kind, and the Go type they return.
var scalarReaders = map[schema.Kind]struct {
	method, varName string
	goType          types.Type
}{
	schema.String: {"String", "s", types.Typ[types.String]},
	schema.Bool:   {"Bool", "b", types.Typ[types.Bool]},
	schema.Int:    {"Int", "n", types.Typ[types.Int64]},
	schema.Uint:   {"Uint", "n", types.Typ[types.Uint64]},
	schema.Float:  {"Float", "f", types.Typ[types.Float64]},
	schema.Bytes:  {"Base64", "b", types.NewSlice(types.Typ[types.Byte])},
	schema.Any:    {"Any", "a", types.NewInterfaceType(nil, nil)},
}

func (e *emitter) decodeValue(t *schema.Type, dst string, depth int) []jen.Code {
	switch t.Kind {
	case schema.Struct:
		return []jen.Code{jen.Id(genPrefix+"Decode"+t.Object.Name).Call(d(), jen.Id(addr(dst)))}
	case schema.Slice:
		list, i := temp("list", depth), temp("i", depth)
		loop := []jen.Code{jen.Id(list).Op("=").Append(jen.Id(list), e.zero(t.Elem.Go))}
		loop = append(loop, e.decode(t.Elem, list+"["+i+"]", depth+1)...)
		body := []jen.Code{
			jen.Id(list).Op(":=").Add(e.typ(t.Go)).Values(),
			jen.For(jen.Id(i).Op(":=").Range().Add(d()).Dot("Elements")).Block(loop...),
		}
		body = append(body, e.countChecks(&t.Rules, jen.Len(jen.Id(list)), "item")...)
		body = append(body, jen.Id(dst).Op("=").Id(list))
		return []jen.Code{jen.If(d().Dot("Expect").Call(wire("Array"))).Block(body...)}
	case schema.Array:
		count, i := temp("count", depth), temp("i", depth)
		loop := []jen.Code{
			jen.Id(count).Op("=").Id(i).Op("+").Lit(1),
			jen.If(jen.Id(i).Op(">=").Lit(int(t.Len))).Block(d().Dot("Skip").Call(), jen.Continue()),
		}
		loop = append(loop, e.decode(t.Elem, dst+"["+i+"]", depth+1)...)
		body := []jen.Code{
			jen.Id(count).Op(":=").Lit(0),
			jen.For(jen.Id(i).Op(":=").Range().Add(d()).Dot("Elements")).Block(loop...),
		}
		body = append(body, e.countChecks(&t.Rules, jen.Id(count), "item")...)
		return []jen.Code{jen.If(d().Dot("Expect").Call(wire("Array"))).Block(body...)}
	case schema.Map:
		m, k, x := temp("m", depth), temp("k", depth), temp("x", depth)
		loop := []jen.Code{jen.Var().Id(x).Add(e.typ(t.Elem.Go))}
		loop = append(loop, e.decode(t.Elem, x, depth+1)...)
		key := t.Go.Underlying().(*types.Map).Key()
		loop = append(loop, jen.Id(m).Index(e.typ(key).Parens(jen.Id(k))).Op("=").Id(x))
		body := []jen.Code{
			jen.Id(m).Op(":=").Add(e.typ(t.Go)).Values(),
			jen.For(jen.Id(k).Op(":=").Range().Add(d()).Dot("Members")).Block(loop...),
		}
		body = append(body, e.countChecks(&t.Rules, jen.Len(jen.Id(m)), "property")...)
		body = append(body, jen.Id(dst).Op("=").Id(m))
		return []jen.Code{jen.If(d().Dot("Expect").Call(wire("Object"))).Block(body...)}
	}
	r, ok := scalarReaders[t.Kind]
	if !ok {
		panic(fmt.Sprintf("gen: no decoder for kind %d", t.Kind))
	}
	v := temp(r.varName, depth)
	var args []jen.Code
	if t.Kind == schema.Float {
		args = append(args, jen.Lit(t.Bits))
	}
	method := r.method
	if t.Kind == schema.Int || t.Kind == schema.Uint {
		// Every integer limit, from the type and the tags, in one call that names the
		// limit the value breaks.
		var lo, hi jen.Code
		var loMsg, hiMsg string
		method, lo, hi, loMsg, hiMsg = integerRange(t)
		if method != r.method {
			args = []jen.Code{lo, hi, jen.Lit(loMsg), jen.Lit(hiMsg)}
		}
	}
	body := e.checks(t, v)
	body = append(body, jen.Id(bare(dst)).Op("=").Add(e.convert(jen.Id(v), r.goType, t.Go)))
	return []jen.Code{jen.If(jen.List(jen.Id(v), jen.Id("ok")).Op(":=").Add(d()).Dot(method).Call(args...), jen.Id("ok")).Block(body...)}
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

// countChecks emits the minItems/maxItems (or minProperties/maxProperties) checks.
func (e *emitter) countChecks(r *schema.Rules, n jen.Code, noun string) []jen.Code {
	lo, hi := r.MinItems, r.MaxItems
	if noun == "property" {
		lo, hi = r.MinProperties, r.MaxProperties
	}
	plural := func(k uint64) string {
		if k == 1 {
			return "1 " + noun
		}
		if noun == "property" {
			return fmt.Sprintf("%d properties", k)
		}
		return fmt.Sprintf("%d %ss", k, noun)
	}
	if lo != nil && hi != nil && *lo == *hi {
		return []jen.Code{jen.If(jen.Add(n).Op("!=").Lit(int(*lo))).Block(report("must have exactly " + plural(*lo)))}
	}
	var out []jen.Code
	if lo != nil && *lo > 0 {
		out = append(out, jen.If(jen.Add(n).Op("<").Lit(int(*lo))).Block(report("must have at least "+plural(*lo))))
	}
	if hi != nil {
		out = append(out, jen.If(jen.Add(n).Op(">").Lit(int(*hi))).Block(report("must have at most "+plural(*hi))))
	}
	return out
}

func report(msg string) jen.Code { return d().Dot("Report").Call(jen.Lit(msg)) }

// checks emits the validation of a decoded scalar held in v.
func (e *emitter) checks(t *schema.Type, v string) []jen.Code {
	r := &t.Rules
	var out []jen.Code
	if len(r.Enum) > 0 {
		var texts []string
		for _, x := range r.Enum {
			texts = append(texts, x.JSON)
		}
		var cases []jen.Code
		for _, x := range r.Enum {
			cases = append(cases, literal(x))
		}
		out = append(out, jen.Switch(jen.Id(v)).Block(
			jen.Case(cases...),
			jen.Default().Block(report("must be one of "+strings.Join(texts, ", "))),
		))
	}
	switch t.Kind {
	case schema.String:
		out = append(out, e.lengthChecks(r, v)...)
		if r.Pattern != "" {
			out = append(out, jen.If(jen.Op("!").Id(e.pattern(r.Pattern)).Dot("MatchString").Call(jen.Id(v))).Block(
				report("must match the pattern "+r.Pattern)))
		}
	case schema.Int, schema.Uint, schema.Float:
		out = append(out, e.boundChecks(t, v)...)
	}
	return out
}

func (e *emitter) lengthChecks(r *schema.Rules, v string) []jen.Code {
	chars := func(n uint64) string {
		if n == 1 {
			return "1 character"
		}
		return fmt.Sprintf("%d characters", n)
	}
	minLen := r.MinLength != nil && *r.MinLength > 0
	if !minLen && r.MaxLength == nil {
		return nil
	}
	// JSON Schema counts characters (code points), not bytes.
	count := jen.Id("length").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(v))
	var check *jen.Statement
	if minLen {
		check = jen.If(count, jen.Id("length").Op("<").Lit(int(*r.MinLength))).Block(report("must be at least " + chars(*r.MinLength) + " long"))
	}
	if r.MaxLength != nil {
		tooLong := jen.Id("length").Op(">").Lit(int(*r.MaxLength))
		block := jen.Block(report("must be at most " + chars(*r.MaxLength) + " long"))
		if check == nil {
			check = jen.If(count, tooLong).Add(block)
		} else {
			check = check.Else().If(tooLong).Add(block)
		}
	}
	return []jen.Code{check}
}

// bound is one numeric limit: the value is wrong when it compares to the threshold by op.
type bound struct {
	n    *schema.Number
	op   string // the comparison that means "out of bounds"
	text string // what the value must be
}

// boundChecks emits the limits of a float. (Integer limits are all checked by the decoder
// call, see integerRange.)
func (e *emitter) boundChecks(t *schema.Type, v string) []jen.Code {
	if t.Kind != schema.Float {
		return nil
	}
	r := &t.Rules
	var out []jen.Code
	for _, b := range []bound{
		{r.Minimum, "<", ">= "}, {r.Maximum, ">", "<= "},
		{r.ExclusiveMinimum, "<=", "> "}, {r.ExclusiveMaximum, ">=", "< "},
	} {
		if b.n == nil || math.IsInf(b.n.Float(), 0) {
			continue // beyond float64, which the decoder enforces
		}
		out = append(out, jen.If(jen.Id(v).Op(b.op).Op(floatText(b.n))).Block(report("must be "+b.text+b.n.Text)))
	}
	return out
}

// integerRange folds the limits of an integer (its type's range and the minimum, maximum
// and exclusive bounds of its tags) into the closed range the decoder checks, keeping the
// message of the tightest limit on each side. Without limits beyond 64 bits, it keeps the
// plain Int or Uint call.
func integerRange(t *schema.Type) (method string, lo, hi jen.Code, loMsg, hiMsg string) {
	r := &t.Rules
	loB, hiB := new(big.Int).SetInt64(math.MinInt64>>(64-t.Bits)), new(big.Int).SetInt64(math.MaxInt64>>(64-t.Bits))
	method = "Int"
	if t.Kind == schema.Uint {
		loB, hiB = new(big.Int), new(big.Int).SetUint64(math.MaxUint64>>(64-t.Bits))
		method = "Uint"
	}
	natLo, natHi := new(big.Int).Set(loB), new(big.Int).Set(hiB)
	loMsg, hiMsg = "must be >= "+loB.String(), "must be <= "+hiB.String()
	for _, b := range []bound{
		{r.Minimum, "<", ">= "}, {r.Maximum, ">", "<= "},
		{r.ExclusiveMinimum, "<=", "> "}, {r.ExclusiveMaximum, ">=", "< "},
	} {
		if b.n == nil {
			continue
		}
		threshold, op := integerThreshold(b.n.Rat, b.op)
		msg := "must be " + b.text + b.n.Text
		if op == "<" { // v < threshold is out: the range starts at threshold
			if threshold.Cmp(loB) > 0 {
				loB, loMsg = threshold, msg
			}
		} else if threshold.Cmp(hiB) < 0 {
			hiB, hiMsg = threshold, msg
		}
	}
	if loB.Cmp(natLo) == 0 && hiB.Cmp(natHi) == 0 && t.Bits == 64 {
		return method, nil, nil, "", ""
	}
	// A limit beyond the type's range can never be met; the builder reports it, and the
	// decoder then rejects every value.
	if loB.Cmp(natHi) > 0 {
		loB = natHi
	}
	if hiB.Cmp(natLo) < 0 {
		hiB = natLo
	}
	return method + "Range", jen.Op(loB.String()), jen.Op(hiB.String()), loMsg, hiMsg
}

// integerThreshold turns a comparison "v op bound" with a possibly fractional bound into an
// equivalent comparison "v < T" or "v > T" with a whole T, for integer v.
func integerThreshold(bound *big.Rat, op string) (*big.Int, string) {
	floor := new(big.Int).Div(bound.Num(), bound.Denom()) // Div rounds toward -inf for positive denominators
	ceil := new(big.Int).Set(floor)
	if !bound.IsInt() {
		ceil.Add(ceil, big.NewInt(1))
	}
	switch op {
	case "<": // v < b  <=>  v < ceil(b)
		return ceil, "<"
	case ">": // v > b  <=>  v > floor(b)
		return floor, ">"
	case "<=": // v <= b  <=>  v < floor(b)+1
		return floor.Add(floor, big.NewInt(1)), "<"
	default: // ">=": v >= b  <=>  v > ceil(b)-1
		return ceil.Sub(ceil, big.NewInt(1)), ">"
	}
}

// floatText writes a bound as a Go float constant.
func floatText(n *schema.Number) string {
	if strings.ContainsAny(n.Text, ".eE") {
		return n.Text
	}
	return n.Text + ".0"
}

// encoder emits the encode function of a struct.
func (e *emitter) encoder(o *schema.Object) jen.Code {
	body := []jen.Code{jen.Id("e").Dot("ObjectStart").Call()}
	for _, f := range o.Fields {
		src := "v." + fieldPath(f)
		value := e.encode(f.Type, src, 0)
		if f.Type.Kind == schema.Pointer && f.OmitOut != schema.OmitNever {
			value = e.encode(f.Type.Elem, deref(src), 1) // the guard below rules out nil
		}
		stmts := append([]jen.Code{jen.Id("e").Dot("Key").Call(jen.Lit(f.Name))}, value...)
		switch f.OmitOut {
		case schema.OmitEmpty:
			if cond := nonEmpty(f.Type, src); cond != nil {
				stmts = []jen.Code{jen.If(cond).Block(stmts...)}
			}
		case schema.OmitNil:
			stmts = []jen.Code{jen.If(jen.Id(src).Op("!=").Nil()).Block(stmts...)}
		}
		// Fields promoted through embedded pointers exist only when those pointers are set.
		for i := len(f.Path) - 2; i >= 0; i-- {
			if f.Path[i].Pointer {
				names := make([]string, i+1)
				for j := range names {
					names[j] = f.Path[j].Name
				}
				stmts = []jen.Code{jen.If(jen.Id("v." + strings.Join(names, ".")).Op("!=").Nil()).Block(stmts...)}
			}
		}
		body = append(body, stmts...)
	}
	body = append(body, jen.Id("e").Dot("ObjectEnd").Call())
	name := genPrefix + "Encode" + o.Name
	return jen.Comment(fmt.Sprintf("%s writes a value of type %s as JSON.", name, displayName(o))).Line().
		Func().Id(name).Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Op("*").Add(e.typ(o.Go))).Block(body...)
}

// nonEmpty is the condition under which encoding/json's omitempty keeps a value.
func nonEmpty(t *schema.Type, x string) jen.Code {
	switch t.Kind {
	case schema.String:
		return jen.Id(x).Op("!=").Lit("")
	case schema.Bool:
		return jen.Id(x)
	case schema.Int, schema.Uint, schema.Float:
		return jen.Id(x).Op("!=").Lit(0)
	case schema.Bytes, schema.Slice, schema.Map, schema.Array:
		return jen.Len(jen.Id(x)).Op("!=").Lit(0)
	case schema.Pointer, schema.Any:
		return jen.Id(x).Op("!=").Nil()
	}
	return nil // structs are never empty
}

// scalarWriters are the encoder methods that write each scalar kind and the type they take.
var scalarWriters = map[schema.Kind]struct {
	method string
	goType types.Type
}{
	schema.String: {"String", types.Typ[types.String]},
	schema.Bool:   {"Bool", types.Typ[types.Bool]},
	schema.Int:    {"Int", types.Typ[types.Int64]},
	schema.Uint:   {"Uint", types.Typ[types.Uint64]},
	schema.Float:  {"Float", types.Typ[types.Float64]},
	schema.Bytes:  {"Base64", types.NewSlice(types.Typ[types.Byte])},
	schema.Any:    {"Any", types.NewInterfaceType(nil, nil)},
}

// encode emits statements that write the value of src, an expression of type t.Go.
func (e *emitter) encode(t *schema.Type, src string, depth int) []jen.Code {
	enc := jen.Id("e")
	switch t.Kind {
	case schema.Pointer:
		return []jen.Code{jen.If(jen.Id(src).Op("==").Nil()).Block(enc.Clone().Dot("Null").Call()).Else().Block(
			e.encode(t.Elem, deref(src), depth+1)...)}
	case schema.Struct:
		return []jen.Code{jen.Id(genPrefix+"Encode"+t.Object.Name).Call(enc, jen.Id(addr(src)))}
	case schema.Slice, schema.Array:
		i := temp("i", depth)
		loop := []jen.Code{enc.Clone().Dot("Elem").Call()}
		loop = append(loop, e.encode(t.Elem, src+"["+i+"]", depth+1)...)
		return []jen.Code{
			enc.Clone().Dot("ArrayStart").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Id(bare(src))).Block(loop...),
			enc.Clone().Dot("ArrayEnd").Call(),
		}
	case schema.Map:
		// Keys in sorted order, as encoding/json writes them.
		k, x := temp("k", depth), temp("x", depth)
		key := t.Go.Underlying().(*types.Map).Key()
		loop := []jen.Code{
			enc.Clone().Dot("Key").Call(e.convert(jen.Id(k), key, types.Typ[types.String])),
			jen.Id(x).Op(":=").Id(src).Index(jen.Id(k)),
		}
		loop = append(loop, e.encode(t.Elem, x, depth+1)...)
		return []jen.Code{
			enc.Clone().Dot("ObjectStart").Call(),
			jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id(bare(src))))).Block(loop...),
			enc.Clone().Dot("ObjectEnd").Call(),
		}
	}
	w, ok := scalarWriters[t.Kind]
	if !ok {
		panic(fmt.Sprintf("gen: no encoder for kind %d", t.Kind))
	}
	args := []jen.Code{e.convert(jen.Id(bare(src)), t.Go, w.goType)}
	if t.Kind == schema.Float {
		args = append(args, jen.Lit(t.Bits))
	}
	return []jen.Code{enc.Dot(w.method).Call(args...)}
}
