// Package results has tools whose results may break their output schema: the generated
// result checkers must turn each such result into an error result, never send it.
package results

// Flags is a result with a boolean enum.
type Flags struct {
	// Sure may only be true.
	Sure bool `json:"sure" jsonschema:"enum=true"`
}

// AnyFlags is the argument of return_flags, without the enum.
type AnyFlags struct {
	Sure bool `json:"sure"`
}

// ReturnFlags returns its argument as the result.
//
//mcp:tool
func ReturnFlags(in AnyFlags) Flags { return Flags(in) }

// Pair is a result with a fixed-length list behind a pointer.
type Pair struct {
	// Names are two different names.
	Names *[2]string `json:"names,omitempty" jsonschema:"uniqueItems"`
}

// AnyPair is the argument of return_pair, without uniqueItems.
type AnyPair struct {
	Names *[2]string `json:"names,omitempty"`
}

// ReturnPair returns its argument as the result.
//
//mcp:tool
func ReturnPair(in AnyPair) Pair { return Pair(in) }

// Bounded is a result with rules on strings and numbers.
type Bounded struct {
	Code  string  `json:"code" jsonschema:"pattern=^[A-Z]+$,maxLength=3"`
	Count int     `json:"count" jsonschema:"minimum=1,maximum=9"`
	Step  float64 `json:"step" jsonschema:"multipleOf=0.5"`
}

// AnyBounded is the argument of return_bounded, without the rules.
type AnyBounded struct {
	Code  string  `json:"code"`
	Count int     `json:"count"`
	Step  float64 `json:"step"`
}

// ReturnBounded returns its argument as the result.
//
//mcp:tool
func ReturnBounded(in AnyBounded) Bounded { return Bounded(in) }
