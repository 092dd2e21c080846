//go:build mcpgen

// This file is built only with the mcpgen tag, which the generator sets: go vet (rightly)
// refuses a struct whose fields repeat a json tag, and that is what the generator must
// report here.

package errtags

// Names has fields that share a JSON name, which encoding/json resolves without a word.
type Names struct {
	// Query is what to find.
	Query string `json:"query"`
	// Limit was copied from Query, its tag not renamed: both are left out.
	Limit int `json:"query,omitempty"`
	// Title is left out: Heading's tag names it Title too.
	Title string
	// Heading wins, being tagged.
	Heading string `json:"Title"`
	Inner
	// F hides the F promoted from Inner, being less deep: encoding/json's rule, not reported.
	F string `json:"f,omitempty"`
}

// CheckNames takes them.
//
//mcp:tool
func CheckNames(in Names) error { return nil }
