// Package other has an exported struct with a field of an unexported type.
package other

type hidden struct{ A int }

// Exported has a field whose type other packages cannot name.
type Exported struct {
	Field hidden `json:"field"`
}
