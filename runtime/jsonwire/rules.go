package jsonwire

import (
	"math/big"
	"strconv"
)

// Checks generated code calls for the rules that need more than a comparison.

// MustRat parses a decimal number for a multipleOf rule; generated code calls it once, at
// package initialization, with a number mcpgen checked.
func MustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("jsonwire: not a number: " + s)
	}
	return r
}

// FloatMultiple reports whether f is a multiple of m, judged on the shortest decimal form of
// f (the text a client sent, or the one the encoder writes), so that 0.3 is a multiple of 0.1
// as JSON Schema says, though no float64 division shows it.
func FloatMultiple(f float64, m *big.Rat) bool {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return ok && r.Quo(r, m).IsInt()
}

// Reporter receives problems: a Decoder checking arguments, or a Checker checking a result.
type Reporter interface {
	Report(message string)
}

// CheckUnique reports the first two equal items of a list, for uniqueItems.
func CheckUnique[S ~[]T, T comparable](r Reporter, list S) {
	if i, j, ok := duplicate(list); ok {
		r.Report("must not contain duplicates; items " + strconv.Itoa(i) + " and " + strconv.Itoa(j) + " are equal")
	}
}

func duplicate[S ~[]T, T comparable](list S) (int, int, bool) {
	seen := make(map[T]int, len(list))
	for j, v := range list {
		if i, ok := seen[v]; ok {
			return i, j, true
		}
		seen[v] = j
	}
	return 0, 0, false
}
