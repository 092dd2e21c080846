package mcp

import (
	"testing"
)

// TestToolCallText checks the text block a structured result's type writes itself
// (SetText): it replaces the JSON in the text block, structuredContent keeps the JSON, and
// the buffer of the next call is never memory the result's method handed over.
func TestToolCallText(t *testing.T) {
	c := getToolCall("search", []byte(`{}`), dialect20250618)
	defer putToolCall(c)
	c.structured().Raw([]byte(`{"hits":1}`))
	c.setText(append(c.textBuffer(), "a.go:1: \"hit\"\n"...))
	if got, want := string(c.finish()), `{"content":[{"type":"text","text":"a.go:1: \"hit\"\n"}],"structuredContent":{"hits":1}}`; got != want {
		t.Errorf("result\n%s\nwant\n%s", got, want)
	}

	// Appending to the buffer costs no allocation once it has grown.
	if n := testing.AllocsPerRun(100, func() { c.setText(append(c.textBuffer(), "a.go:1: \"hit\"\n"...)) }); n != 0 {
		t.Errorf("%v allocations per text block", n)
	}

	// A method that returns memory of its own rather than appending to the buffer.
	held := []byte("held by the result's type")
	c2 := getToolCall("search", []byte(`{}`), dialect20250326)
	defer putToolCall(c2)
	c2.structured().Raw([]byte(`{"hits":2}`))
	c2.setText(held)
	_ = append(c2.textBuffer(), "next"...) // what the next call's method appends
	if string(held) != "held by the result's type" {
		t.Errorf("the next call's buffer wrote over the result's own memory: %q", held)
	}
	// Before 2025-06-18 there is no structuredContent: the text is the whole result.
	c2.setText(held)
	if got, want := string(c2.finish()), `{"content":[{"type":"text","text":"held by the result's type"}]}`; got != want {
		t.Errorf("result\n%s\nwant\n%s", got, want)
	}
}
