// Package shapes has a tool of every supported signature: with and without a context,
// with and without arguments, and each kind of result.
package shapes

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Status is the health of the service.
type Status struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
}

// Health reports whether the service is up. It takes no arguments.
//
//mcp:tool readonly
func Health(ctx context.Context) (Status, error) {
	return Status{OK: true, Version: "1.2.3"}, nil
}

// Markdown is text in Markdown.
type Markdown string

// Readme returns the project's README.
//
//mcp:tool
func Readme() Markdown { return "# Shapes\n" }

// Reset forgets everything; it returns only an error.
//
//mcp:tool destructive
func Reset(ctx context.Context) error { return errors.New("reset is disabled") }

// Touch does nothing and returns nothing.
//
//mcp:tool
func Touch() {}

// Pair is two numbers.
type Pair struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Sum is the sum of a pair.
type Sum struct {
	Sum float64 `json:"sum"`
}

// Add adds a pair, taking and returning pointers and no context.
//
//mcp:tool title="Add two numbers"
func Add(p *Pair) (*Sum, error) {
	if p.A == 0 && p.B == 0 {
		return nil, nil // a nil result is reported as an error
	}
	return &Sum{Sum: p.A + p.B}, nil
}

// Dot is a tiny PNG image: one red pixel.
var Dot = []byte("\x89PNG\r\n\x1a\n")

// Picture returns an image.
//
//mcp:tool
func Picture(ctx context.Context) (mcp.Image, error) {
	return mcp.Image{Data: Dot, MIMEType: "image/png"}, nil
}

// Report returns several content blocks.
//
//mcp:tool
func Report() []mcp.Content {
	return []mcp.Content{
		mcp.Text{Text: "see the attached file"},
		mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "file:///report.txt", MIMEType: "text/plain", Text: "all good"}},
		mcp.ResourceLink{URI: "file:///log.txt", Name: "log.txt"},
	}
}

// Custom returns a full result, here an error with structured data.
//
//mcp:tool
func Custom(ctx context.Context) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.Text{Text: "custom failure"}},
		StructuredContent: []byte(`{"code":42}`),
		IsError:           true,
	}, nil
}
