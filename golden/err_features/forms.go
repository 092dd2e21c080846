package errfeatures

import "time"

// Limits is a form with keywords a form cannot hold.
//
//mcp:form
type Limits struct {
	Sure     bool      `json:"sure" jsonschema:"enum=true"`
	Picks    []Topic   `json:"picks" jsonschema:"uniqueItems"`
	Day      time.Time `json:"day" jsonschema:"format=date"`
	Size     string    `json:"size" jsonschema:"enum=s,enum=m" jsonschema_extras:"enumNames=Small"`
	Nameless string    `json:"nameless" jsonschema_extras:"enumNames=A,enumNames=B"`
	Fixed    string    `json:"fixed" jsonschema:"const=v1"`
}

// Topic is a string enum.
type Topic string

// The topics.
const (
	Go   Topic = "go"
	Rust Topic = "rust"
)
