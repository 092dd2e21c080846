// Package other has an exported struct with a field of an unexported type.
package other

type hidden struct{ A int }

// Exported has a field whose type other packages cannot name.
type Exported struct {
	Field hidden `json:"field"`
}

type left struct {
	Name string `json:"left"`
}

type right struct {
	Name string `json:"right"`
}

// Both embeds two unexported structs with a field Name each: encoding/json sees "left" and
// "right", but other packages cannot select either Name (left and right are not theirs to
// name, and Name alone is ambiguous).
type Both struct {
	left
	right
}

type base struct {
	ID string `json:"id"`
}

// Pointer embeds a pointer to an unexported struct, which no other package can allocate.
type Pointer struct {
	*base
}
