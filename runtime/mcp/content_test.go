package mcp

import (
	"fmt"
	"testing"
)

// A typed client's method for a tool without an output schema returns []Content: printed, it
// reads as the blocks' text and what the other blocks are, not as the structs' fields
// ("[{Hello, Ada! <nil>}]" before); TextOf gives the text alone.
func TestContentReads(t *testing.T) {
	size := int64(3)
	blocks := []Content{
		Text{Text: "Hello, Ada!", Annotations: &Annotations{Audience: []Role{RoleUser}}},
		Image{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
		Audio{Data: []byte{1}},
		ResourceLink{URI: "file:///a.txt", Name: "a", Size: &size},
		EmbeddedResource{Resource: ResourceContents{URI: "file:///b.txt", Text: "bee"}},
		EmbeddedResource{Resource: ResourceContents{URI: "file:///c.bin", MIMEType: "application/octet-stream", Blob: []byte{}}},
		Text{Text: "Bye."},
	}
	want := "[Hello, Ada! [image image/png, 3 bytes] [audio, 1 byte] [resource link file:///a.txt] bee [resource file:///c.bin application/octet-stream, 0 bytes] Bye.]"
	if got := fmt.Sprint(blocks); got != want {
		t.Errorf("fmt.Sprint = %s\nwant %s", got, want)
	}
	if got := fmt.Sprintf("%v", blocks[:1]); got != "[Hello, Ada!]" {
		t.Errorf("one text block prints as %s", got)
	}
	if got := TextOf(blocks); got != "Hello, Ada!\nBye." {
		t.Errorf("TextOf = %q", got)
	}
	if got := TextOf([]Content{Text{}, Text{Text: "x"}}); got != "\nx" {
		t.Errorf("TextOf keeps an empty block's line: %q", got)
	}
	if got := (&CallToolResult{Content: blocks, IsError: true}).Err().Error(); got != "mcp: the tool failed: Hello, Ada!\nBye." {
		t.Errorf("Err = %q", got)
	}
}
