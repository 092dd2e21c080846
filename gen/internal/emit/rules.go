package emit

import (
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The checks of a value's rules, emitted both into decoders (validating arguments before the
// call, reported to the decoder "d") and into result checkers (validating a tool's result
// before it is sent, reported to the checker "c"). Each keyword writes its own checks, in its
// row of the schema package's keyword table (schema.Checks); the emitter gives them the
// file's names.

// Local, Pattern, Rat, Convert and Wire make the emitter the schema.Gen that keywords write
// their checks with.
func (e *emitter) Local(name string) *jen.Statement { return e.local(name) }
func (e *emitter) Pattern(re string) string         { return e.pattern(re) }
func (e *emitter) Rat(text string) string           { return e.rat(text) }
func (e *emitter) Convert(x jen.Code, have, want types.Type) jen.Code {
	return e.convert(x, have, want)
}
func (e *emitter) Wire(name string) *jen.Statement { return wire(name) }

// textSubject is the text of a type with its own text form, held in the []byte text, whose
// rules (a pattern, an enum) apply to the text.
func (e *emitter) textSubject(text, to string) schema.Subject {
	return schema.Subject{Expr: text, Type: types.NewSlice(types.Typ[types.Byte]), To: e.localName(to), Bytes: true}
}
