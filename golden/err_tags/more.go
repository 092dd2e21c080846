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
