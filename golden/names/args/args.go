// Package args is named like the decoder generated prompt handlers take.
package args

// Topic is the argument of a prompt.
type Topic struct {
	// Topic to write about.
	Topic string `json:"topic"`
}
