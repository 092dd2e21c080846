package emit

import (
	"fmt"
	"go/types"
	"math"
	"math/big"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The checks of a value's rules, emitted both into decoders (validating arguments before the
// call, reported to the decoder "d") and into result checkers (validating a tool's result
// before it is sent, reported to the checker "c"). One emitter for both keeps the two
// agreeing with each other and with the schema.

// subject is a value to check: a Go expression, its Go type, and whom to report to.
type subject struct {
	expr  string     // the value; for text types, the []byte of its text
	typ   types.Type // its Go type
	to    string     // "d" or "c"
	bytes bool       // expr is a []byte holding text, not a string
}

func (s subject) report(msg string) jen.Code { return jen.Id(s.to).Dot("Report").Call(jen.Lit(msg)) }

// asString converts the subject to a string for a function that takes one.
func (s subject) asString(e *emitter) jen.Code {
	return e.convert(jen.Id(bare(s.expr)), s.typ, types.Typ[types.String])
}

// intChecks says which integer limits valueChecks emits.
type intChecks int

const (
	noIntLimits  intChecks = iota // the decoder call checked them
	allIntLimits                  // a value read as 64 bits: the type's range and the tags'
	tagIntLimits                  // a Go value of the type: only limits tighter than its range
)

// valueChecks emits the checks of a scalar's rules: enum, lengths, pattern, bounds, multipleOf.
func (e *emitter) valueChecks(t *schema.Type, s subject, ints intChecks) []jen.Code {
	r := &t.Rules
	var out []jen.Code
	if len(r.Enum) > 0 {
		var texts []string
		var cases []jen.Code
		for _, x := range r.Enum {
			texts = append(texts, x.JSON)
			cases = append(cases, literal(x))
		}
		on := jen.Id(bare(s.expr))
		if s.bytes {
			on = jen.String().Parens(jen.Id(s.expr)) // no allocation: the compiler sees the comparison
		}
		out = append(out, jen.Switch(on).Block(
			jen.Case(cases...),
			jen.Default().Block(s.report("must be one of "+strings.Join(texts, ", "))),
		))
	}
	switch t.Kind {
	case schema.String, schema.Text:
		out = append(out, e.lengthChecks(r, s)...)
		if r.Pattern != "" {
			match := jen.Id(e.pattern(r.Pattern)).Dot("MatchString").Call(s.asString(e))
			if s.bytes {
				match = jen.Id(e.pattern(r.Pattern)).Dot("Match").Call(jen.Id(s.expr))
			}
			out = append(out, jen.If(jen.Op("!").Add(match)).Block(s.report("must match the pattern "+r.Pattern)))
		}
	case schema.Float:
		out = append(out, e.floatBounds(t, s)...)
		if m := r.MultipleOf; m != nil {
			f := e.convert(jen.Id(bare(s.expr)), s.typ, types.Typ[types.Float64])
			out = append(out, jen.If(jen.Op("!").Add(wire("FloatMultiple")).Call(f, jen.Id(e.rat(m.Text)))).Block(s.report("must be a multiple of "+m.Text)))
		}
	case schema.Int, schema.Uint:
		if ints != noIntLimits {
			// A side is checked when tags narrow it, or, for a value read as 64 bits, when the
			// type is narrower. (Comparing a Go int with a 64-bit limit would not even compile
			// where int has 32 bits.)
			ir := integerRange(t)
			typeSide := ints == allIntLimits && t.Bits < 64
			var cond []jen.Code
			// An unsigned value read as 64 bits is never below 0: no check that cannot fail.
			if ir.loNarrowed || typeSide && t.Kind != schema.Uint {
				cond = append(cond, jen.If(jen.Id(bare(s.expr)).Op("<").Op(ir.lo.String())).Block(s.report(ir.loMsg)))
			}
			if ir.hiNarrowed || typeSide {
				cond = append(cond, jen.If(jen.Id(bare(s.expr)).Op(">").Op(ir.hi.String())).Block(s.report(ir.hiMsg)))
			}
			out = append(out, cond...)
		}
		if m := r.MultipleOf; m != nil {
			// For a whole n and m = p/q in lowest terms, n/m is whole exactly when p divides n.
			if p := m.Rat.Num(); p.Cmp(big.NewInt(1)) != 0 {
				out = append(out, jen.If(jen.Id(bare(s.expr)).Op("%").Op(p.String()).Op("!=").Lit(0)).Block(s.report("must be a multiple of "+m.Text)))
			}
		}
	}
	return out
}

func (e *emitter) lengthChecks(r *schema.Rules, s subject) []jen.Code {
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
	count := e.local("length").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(s.asString(e))
	if s.bytes {
		count = e.local("length").Op(":=").Qual("unicode/utf8", "RuneCount").Call(jen.Id(s.expr))
	}
	var check *jen.Statement
	if minLen {
		check = jen.If(count, e.local("length").Op("<").Lit(int(*r.MinLength))).Block(s.report("must be at least " + chars(*r.MinLength) + " long"))
	}
	if r.MaxLength != nil {
		tooLong := e.local("length").Op(">").Lit(int(*r.MaxLength))
		block := jen.Block(s.report("must be at most " + chars(*r.MaxLength) + " long"))
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

func bounds(r *schema.Rules) []bound {
	return []bound{
		{r.Minimum, "<", ">= "}, {r.Maximum, ">", "<= "},
		{r.ExclusiveMinimum, "<=", "> "}, {r.ExclusiveMaximum, ">=", "< "},
	}
}

// floatBounds emits the limits of a float.
func (e *emitter) floatBounds(t *schema.Type, s subject) []jen.Code {
	var out []jen.Code
	for _, b := range bounds(&t.Rules) {
		if b.n == nil || math.IsInf(b.n.Float(), 0) || t.Bits == 32 && math.Abs(b.n.Float()) == math.MaxFloat32 {
			continue // beyond float64, or float32's own range: the decoder enforces them
		}
		out = append(out, jen.If(jen.Id(bare(s.expr)).Op(b.op).Op(floatText(b.n))).Block(s.report("must be "+b.text+b.n.Text)))
	}
	return out
}

// intRange is the closed range an integer must lie in: its type's range narrowed by the
// minimum, maximum and exclusive bounds of its tags, with the message of the tightest limit on
// each side.
type intRange struct {
	lo, hi                 *big.Int
	loMsg, hiMsg           string
	loNarrowed, hiNarrowed bool // tighter than the type's range: a Go value of the type can break it
	narrowed               bool // either
}

func integerRange(t *schema.Type) intRange {
	r := &t.Rules
	lo, hi := new(big.Int).SetInt64(math.MinInt64>>(64-t.Bits)), new(big.Int).SetInt64(math.MaxInt64>>(64-t.Bits))
	if t.Kind == schema.Uint {
		lo, hi = new(big.Int), new(big.Int).SetUint64(math.MaxUint64>>(64-t.Bits))
	}
	typeLo, typeHi := new(big.Int).Set(lo), new(big.Int).Set(hi)
	ir := intRange{lo: lo, hi: hi, loMsg: "must be >= " + lo.String(), hiMsg: "must be <= " + hi.String()}
	for _, b := range bounds(r) {
		if b.n == nil {
			continue
		}
		threshold, op := integerThreshold(b.n.Rat, b.op)
		msg := "must be " + b.text + b.n.Text
		if op == "<" { // v < threshold is out: the range starts at threshold
			if threshold.Cmp(ir.lo) > 0 {
				ir.lo, ir.loMsg = threshold, msg
			}
		} else if threshold.Cmp(ir.hi) < 0 {
			ir.hi, ir.hiMsg = threshold, msg
		}
	}
	ir.loNarrowed, ir.hiNarrowed = ir.lo.Cmp(typeLo) != 0, ir.hi.Cmp(typeHi) != 0
	ir.narrowed = ir.loNarrowed || ir.hiNarrowed
	// A limit beyond the type's range can never be met (the builder reports it); clamping
	// keeps the constants representable, and every value is then rejected.
	if ir.lo.Cmp(typeHi) > 0 {
		ir.lo = typeHi
	}
	if ir.hi.Cmp(typeLo) < 0 {
		ir.hi = typeLo
	}
	return ir
}

// decoderCall is the decoder method that reads an integer with its range, and its arguments:
// the plain Int or Uint when the range is all of 64 bits, which those check themselves.
func (ir intRange) decoderCall(t *schema.Type) (string, []jen.Code) {
	method := "Int"
	if t.Kind == schema.Uint {
		method = "Uint"
	}
	if t.Bits == 64 && !ir.narrowed {
		return method, nil
	}
	return method + "Range", []jen.Code{jen.Op(ir.lo.String()), jen.Op(ir.hi.String()), jen.Lit(ir.loMsg), jen.Lit(ir.hiMsg)}
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

// countChecks emits the minItems/maxItems (or minProperties/maxProperties) checks.
func countChecks(r *schema.Rules, n jen.Code, noun, to string) []jen.Code {
	s := subject{to: to}
	lo, hi := r.MinItems, r.MaxItems
	if noun == "property" {
		lo, hi = r.MinProperties, r.MaxProperties
	}
	plural := func(k uint64) string {
		switch {
		case k == 1:
			return "1 " + noun
		case noun == "property":
			return fmt.Sprintf("%d properties", k)
		}
		return fmt.Sprintf("%d %ss", k, noun)
	}
	if lo != nil && hi != nil && *lo == *hi {
		return []jen.Code{jen.If(jen.Add(n).Op("!=").Lit(int(*lo))).Block(s.report("must have exactly " + plural(*lo)))}
	}
	var out []jen.Code
	if lo != nil && *lo > 0 {
		out = append(out, jen.If(jen.Add(n).Op("<").Lit(int(*lo))).Block(s.report("must have at least "+plural(*lo))))
	}
	if hi != nil {
		out = append(out, jen.If(jen.Add(n).Op(">").Lit(int(*hi))).Block(s.report("must have at most "+plural(*hi))))
	}
	return out
}

// uniqueCheck emits the uniqueItems check of a list held in list.
func uniqueCheck(t *schema.Type, list, to string) []jen.Code {
	if !t.Rules.UniqueItems {
		return nil
	}
	if t.Kind == schema.Array {
		list += "[:]"
	}
	return []jen.Code{wire("CheckUnique").Call(jen.Id(to), jen.Id(list))}
}
