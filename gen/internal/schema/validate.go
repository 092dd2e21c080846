package schema

import (
	"fmt"
	"go/types"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
)

// The validation code of the keywords that constrain values: what a generated decoder checks
// in arguments before the call (reporting to the decoder), and what a generated result
// checker checks in a tool's result before it is sent (reporting to the checker). The code is
// in the keyword's row (see keywords), so that its schema, the check of its default and the
// code that enforces it are written in one place and agree.

// Gen is what validation code is written with: the names of the generated file, which
// gen/internal/emit settles.
type Gen interface {
	// Local is a local variable of generated code, named as the file has it.
	Local(name string) *jen.Statement
	// Pattern and Rat name the package variables holding a compiled pattern and a
	// multipleOf number, prepared once per file.
	Pattern(re string) string
	Rat(text string) string
	// Convert converts x from type have to type want when they differ.
	Convert(x jen.Code, have, want types.Type) jen.Code
	// Wire names a declaration of runtime/jsonwire.
	Wire(name string) *jen.Statement
}

// Subject is a value to check, and whom to report its problems to.
type Subject struct {
	// Expr is the value: a Go operand such as v.Name, (*v.P) or list; for a type with its own
	// text form, a []byte of its text (Bytes).
	Expr  string
	Type  types.Type // its Go type
	To    string     // the local problems are reported to: a decoder or a checker
	Bytes bool       // Expr is a []byte holding text, not a string
	// Len is the number of items of a list or a map; nil when its type fixes it (an array
	// in a result).
	Len jen.Code
	// Ints says which limits of an integer to check.
	Ints IntLimits
}

func (s Subject) report(msg string) jen.Code { return jen.Id(s.To).Dot("Report").Call(jen.Lit(msg)) }

// asString converts the value to a string for a function that takes one.
func (s Subject) asString(g Gen) jen.Code {
	return g.Convert(jen.Id(standalone(s.Expr)), s.Type, types.Typ[types.String])
}

// IntLimits says which limits of an integer the checks include.
type IntLimits int

const (
	NoIntLimits  IntLimits = iota // the decoder's call checked them (IntRange)
	AllIntLimits                  // a value read as 64 bits: the type's range and the tags'
	TagIntLimits                  // a Go value of the type: only limits tighter than its range
)

// checker writes the validation code of a keyword, or of keywords checked together (the
// length limits count the characters once; the bounds of an integer are one range). Rows
// that share one share the code, written once.
type checker struct {
	write func(g Gen, t *Type, s Subject) []jen.Code
}

// The checkers that several rows share; a keyword checked alone has its own in its row.
var (
	boundsCheck = &checker{boundsCode}
	lengthCheck = &checker{lengthCode}
	countCheck  = &checker{countCode}
)

// Checks writes the checks of the rules of t (a scalar, a list or a map; not what its items
// hold), in the order of the keyword table.
func Checks(g Gen, t *Type, s Subject) []jen.Code {
	var out []jen.Code
	var done []*checker
	for i := range keywords {
		k := &keywords[i]
		if k.check == nil || !slices.Contains(k.kinds, t.Kind) || slices.Contains(done, k.check) {
			continue
		}
		done = append(done, k.check)
		out = append(out, k.check.write(g, t, s)...)
	}
	return out
}

// HasChecks reports whether t has rules for Checks to check, writing no code.
func HasChecks(t *Type, s Subject) bool {
	return len(Checks(dryRun{}, t, s)) > 0
}

// dryRun is a Gen that names nothing: it lets HasChecks ask whether there is code to write
// without preparing patterns or numbers the file would then declare.
type dryRun struct{}

func (dryRun) Local(name string) *jen.Statement             { return jen.Id(name) }
func (dryRun) Pattern(string) string                        { return "_" }
func (dryRun) Rat(string) string                            { return "_" }
func (dryRun) Convert(x jen.Code, _, _ types.Type) jen.Code { return x }
func (dryRun) Wire(name string) *jen.Statement              { return jen.Id(name) }

func enumCode(g Gen, t *Type, s Subject) []jen.Code {
	r := &t.Rules
	if len(r.Enum) == 0 {
		return nil
	}
	var texts []string
	var cases []jen.Code
	for _, x := range r.Enum {
		texts = append(texts, x.JSON)
		cases = append(cases, Literal(x))
	}
	on := jen.Id(standalone(s.Expr))
	if s.Bytes {
		on = jen.String().Parens(jen.Id(s.Expr)) // no allocation: the compiler sees the comparison
	}
	return []jen.Code{jen.Switch(on).Block(
		jen.Case(cases...),
		jen.Default().Block(s.report("must be one of "+strings.Join(texts, ", "))),
	)}
}

func constCode(g Gen, t *Type, s Subject) []jen.Code {
	c := t.Rules.Const
	if c == nil {
		return nil
	}
	v := jen.Id(standalone(s.Expr))
	var differs *jen.Statement
	switch {
	case t.Kind == Bool && c.Lit == true:
		differs = jen.Op("!").Add(v)
	case t.Kind == Bool:
		differs = v
	case s.Bytes:
		differs = jen.String().Parens(jen.Id(s.Expr)).Op("!=").Add(Literal(*c))
	default:
		differs = v.Op("!=").Add(Literal(*c))
	}
	return []jen.Code{jen.If(differs).Block(s.report("must be " + c.JSON))}
}

func lengthCode(g Gen, t *Type, s Subject) []jen.Code {
	r := &t.Rules
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
	count := g.Local("length").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(s.asString(g))
	if s.Bytes {
		count = g.Local("length").Op(":=").Qual("unicode/utf8", "RuneCount").Call(jen.Id(s.Expr))
	}
	var check *jen.Statement
	if minLen {
		check = jen.If(count, g.Local("length").Op("<").Lit(int(*r.MinLength))).Block(s.report("must be at least " + chars(*r.MinLength) + " long"))
	}
	if r.MaxLength != nil {
		tooLong := g.Local("length").Op(">").Lit(int(*r.MaxLength))
		block := jen.Block(s.report("must be at most " + chars(*r.MaxLength) + " long"))
		if check == nil {
			check = jen.If(count, tooLong).Add(block)
		} else {
			check = check.Else().If(tooLong).Add(block)
		}
	}
	return []jen.Code{check}
}

func patternCode(g Gen, t *Type, s Subject) []jen.Code {
	p := t.Rules.Pattern
	if p == "" {
		return nil
	}
	match := jen.Id(g.Pattern(p)).Dot("MatchString").Call(s.asString(g))
	if s.Bytes {
		match = jen.Id(g.Pattern(p)).Dot("Match").Call(jen.Id(s.Expr))
	}
	return []jen.Code{jen.If(jen.Op("!").Add(match)).Block(s.report("must match the pattern " + p))}
}

// boundsCode checks minimum, maximum, exclusiveMinimum and exclusiveMaximum.
func boundsCode(g Gen, t *Type, s Subject) []jen.Code {
	if t.Kind == Float {
		return floatBounds(t, s)
	}
	if s.Ints == NoIntLimits {
		return nil
	}
	// A side is checked when tags narrow it, or, for a value read as 64 bits, when the type
	// is narrower. (Comparing a Go int with a 64-bit limit would not even compile where int
	// has 32 bits.)
	ir := IntegerRange(t)
	typeSide := s.Ints == AllIntLimits && t.Bits < 64
	var out []jen.Code
	// An unsigned value read as 64 bits is never below 0: no check that cannot fail.
	if ir.loNarrowed || typeSide && t.Kind != Uint {
		out = append(out, jen.If(jen.Id(standalone(s.Expr)).Op("<").Op(ir.lo.String())).Block(s.report(ir.loMsg)))
	}
	if ir.hiNarrowed || typeSide {
		out = append(out, jen.If(jen.Id(standalone(s.Expr)).Op(">").Op(ir.hi.String())).Block(s.report(ir.hiMsg)))
	}
	return out
}

func multipleCode(g Gen, t *Type, s Subject) []jen.Code {
	m := t.Rules.MultipleOf
	if m == nil {
		return nil
	}
	if t.Kind == Float {
		f := g.Convert(jen.Id(standalone(s.Expr)), s.Type, types.Typ[types.Float64])
		return []jen.Code{jen.If(jen.Op("!").Add(g.Wire("FloatMultiple")).Call(f, jen.Id(g.Rat(m.Text)))).Block(s.report("must be a multiple of " + m.Text))}
	}
	// For a whole n and m = p/q in lowest terms, n/m is whole exactly when p divides n.
	if p := m.Rat.Num(); p.Cmp(big.NewInt(1)) != 0 {
		return []jen.Code{jen.If(jen.Id(standalone(s.Expr)).Op("%").Op(p.String()).Op("!=").Lit(0)).Block(s.report("must be a multiple of " + m.Text))}
	}
	return nil
}

// countCode checks minItems and maxItems, or minProperties and maxProperties.
func countCode(g Gen, t *Type, s Subject) []jen.Code {
	if s.Len == nil {
		return nil
	}
	r := &t.Rules
	lo, hi, noun := r.MinItems, r.MaxItems, "item"
	if t.Kind == Map {
		lo, hi, noun = r.MinProperties, r.MaxProperties, "property"
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
		return []jen.Code{jen.If(jen.Add(s.Len).Op("!=").Lit(int(*lo))).Block(s.report("must have exactly " + plural(*lo)))}
	}
	var out []jen.Code
	if lo != nil && *lo > 0 {
		out = append(out, jen.If(jen.Add(s.Len).Op("<").Lit(int(*lo))).Block(s.report("must have at least "+plural(*lo))))
	}
	if hi != nil {
		out = append(out, jen.If(jen.Add(s.Len).Op(">").Lit(int(*hi))).Block(s.report("must have at most "+plural(*hi))))
	}
	return out
}

func uniqueCode(g Gen, t *Type, s Subject) []jen.Code {
	if !t.Rules.UniqueItems {
		return nil
	}
	list := standalone(s.Expr)
	if t.Kind == Array {
		list = s.Expr + "[:]" // (*p)[:], not *p[:]
	}
	return []jen.Code{g.Wire("CheckUnique").Call(jen.Id(s.To), jen.Id(list))}
}

// bound is one numeric limit: the value is wrong when it compares to the threshold by op.
type bound struct {
	n    *Number
	op   string // the comparison that means "out of bounds"
	text string // what the value must be
}

func bounds(r *Rules) []bound {
	return []bound{
		{r.Minimum, "<", ">= "}, {r.Maximum, ">", "<= "},
		{r.ExclusiveMinimum, "<=", "> "}, {r.ExclusiveMaximum, ">=", "< "},
	}
}

// floatBounds checks the limits of a float.
func floatBounds(t *Type, s Subject) []jen.Code {
	var out []jen.Code
	for _, b := range bounds(&t.Rules) {
		if b.n == nil || math.IsInf(b.n.Float(), 0) || t.Bits == 32 && math.Abs(b.n.Float()) == math.MaxFloat32 {
			continue // beyond float64, or float32's own range: the decoder enforces them
		}
		out = append(out, jen.If(jen.Id(standalone(s.Expr)).Op(b.op).Op(floatText(b.n))).Block(s.report("must be "+b.text+b.n.Text)))
	}
	return out
}

// IntRange is the closed range an integer must lie in: its type's range narrowed by the
// minimum, maximum and exclusive bounds of its tags, with the message of the tightest limit on
// each side.
type IntRange struct {
	lo, hi                 *big.Int
	loMsg, hiMsg           string
	loNarrowed, hiNarrowed bool // tighter than the type's range: a Go value of the type can break it
	narrowed               bool // either
}

// IntegerRange returns the range of an integer.
func IntegerRange(t *Type) IntRange {
	r := &t.Rules
	lo, hi := new(big.Int).SetInt64(math.MinInt64>>(64-t.Bits)), new(big.Int).SetInt64(math.MaxInt64>>(64-t.Bits))
	if t.Kind == Uint {
		lo, hi = new(big.Int), new(big.Int).SetUint64(math.MaxUint64>>(64-t.Bits))
	}
	typeLo, typeHi := new(big.Int).Set(lo), new(big.Int).Set(hi)
	ir := IntRange{lo: lo, hi: hi, loMsg: "must be >= " + lo.String(), hiMsg: "must be <= " + hi.String()}
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

// DecoderCall is the decoder method that reads an integer with its range, and its arguments:
// the plain Int or Uint when the range is all of 64 bits, which those check themselves.
func (ir IntRange) DecoderCall(t *Type) (string, []jen.Code) {
	method := "Int"
	if t.Kind == Uint {
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
func floatText(n *Number) string {
	if strings.ContainsAny(n.Text, ".eE") {
		return n.Text
	}
	return n.Text + ".0"
}

// Literal writes a value from a tag as a Go constant.
func Literal(v Value) jen.Code {
	switch lit := v.Lit.(type) {
	case string:
		return jen.Lit(lit)
	case time.Duration:
		return durationLiteral(lit)
	}
	return jen.Op(v.JSON) // numbers and booleans: the JSON text is a valid untyped Go constant
}

// durationLiteral writes a duration in the largest unit that divides it: 30 * time.Second.
func durationLiteral(d time.Duration) jen.Code {
	for _, u := range []struct {
		name string
		size time.Duration
	}{{"Hour", time.Hour}, {"Minute", time.Minute}, {"Second", time.Second}, {"Millisecond", time.Millisecond}, {"Microsecond", time.Microsecond}} {
		if d != 0 && d%u.size == 0 {
			return jen.Op(strconv.FormatInt(int64(d/u.size), 10)).Op("*").Qual("time", u.name) // an untyped count
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Op(strconv.FormatInt(int64(d), 10)))
}

// standalone writes an operand where it stands alone (an argument, a comparison): *p rather
// than (*p), which is only needed before an index or a selector.
func standalone(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") {
		return "*" + x[2:len(x)-1]
	}
	return x
}
