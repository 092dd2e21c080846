// Package errparamtype has tools whose types have no JSON representation.
package errparamtype

import (
	"context"
	"time"
	"unsafe"
)

// Watch streams events: a channel cannot be a tool argument.
//
//mcp:tool
func Watch(ctx context.Context, events chan string) error { return nil }

// Job has fields that JSON cannot carry.
type Job struct {
	Run    func()         `json:"run"`
	Weight complex128     `json:"weight"`
	Next   chan int       `json:"next"`
	Raw    unsafe.Pointer `json:"raw"`
	ok     bool           // unexported: ignored, not an error
}

// Schedule takes a struct with unsupported fields.
//
//mcp:tool
func Schedule(job Job) error { return nil }

// Matcher is an interface other than any.
type Matcher interface{ Match(string) bool }

// Search holds an interface.
type Search struct {
	Filter Matcher          `json:"filter"`
	ByID   map[int]string   `json:"byId"`
	When   time.Time        `json:"when"`
	Deep   [][]chan float64 `json:"deep"`
}

// Find takes unsupported field types nested in several ways.
//
//mcp:tool
func Find(s Search) error { return nil }

// Count returns an int, which is not a tool result.
//
//mcp:tool
func Count() int { return 0 }

// List returns a list, which is not a tool result either.
//
//mcp:tool
func List() ([]string, error) { return nil, nil }

// Tally is a map type of this package.
type Tally map[string]int

// Counts returns one.
//
//mcp:tool
func Counts() *Tally { return nil }
