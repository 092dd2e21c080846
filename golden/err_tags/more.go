package errtags

import "time"

// More has more mistakes, one per field.
type More struct {
	Day time.Time `json:"day" jsonschema:"format=date"`
	// A time.Time is a date-time: saying so is fine.
	At time.Time `json:"at" jsonschema:"format=date-time"`
}

// CheckMore takes them.
//
//mcp:tool
func CheckMore(in More) error { return nil }

// Options has json tag options encoding/json does not know.
type Options struct {
	A     string `json:"a,omitemtpy"`
	B     string `json:"b,omitempty,omitZero"`
	C     int    `json:",strnig"`
	D     string `json:"d,readonly"`
	E     string `json:"e,omitempty,"`
	Inner `json:",inline"`
}

// Inner is embedded.
type Inner struct {
	F string `json:"f,omitempty"`
}

// CheckOptions takes them.
//
//mcp:tool
func CheckOptions(in Options) error { return nil }
