// Package results has tools whose results may break their output schema: the generated
// result checkers must turn each such result into an error result, never send it. Constants
// (const) are checked in arguments too.
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

// Versioned has constants.
type Versioned struct {
	Version string  `json:"version" jsonschema:"const=2"`
	Strict  bool    `json:"strict,omitempty" jsonschema:"const=true"`
	Scale   float64 `json:"scale,omitempty" jsonschema:"const=1.5,default=1.5"`
	Level   uint8   `json:"level,omitempty" jsonschema:"const=3"`
}

// AnyVersioned is the argument of return_versioned, without the constants.
type AnyVersioned struct {
	Version string  `json:"version"`
	Strict  bool    `json:"strict,omitempty"`
	Scale   float64 `json:"scale,omitempty"`
	Level   uint8   `json:"level,omitempty"`
}

// ReturnVersioned returns its argument as the result.
//
//mcp:tool
func ReturnVersioned(in AnyVersioned) Versioned { return Versioned(in) }

// TakeVersioned takes constants, which the decoder checks.
//
//mcp:tool
func TakeVersioned(in Versioned) string { return in.Version }
