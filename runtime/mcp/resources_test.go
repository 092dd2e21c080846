package mcp

import (
	"context"
	"testing"
)

// A resource may return contents it keeps (a cache); reading it must not fill in the
// kept values, or a template's second URI would be answered with the first one's.
func TestReadResourceLeavesReturnedContentsAlone(t *testing.T) {
	srv := quietServer(nil)
	cached := []ResourceContents{{Text: "same"}}
	srv.AddResourceTemplate(ResourceTemplate{
		URITemplate: "notes://{id}",
		Name:        "note",
		MIMEType:    "text/plain",
		Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
			return cached, nil
		},
	})
	h := start(t, srv)
	h.initialize("2025-11-25")
	for i, uri := range []string{"notes://a", "notes://b"} {
		r := result(t, h.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+uri+`"}}`))
		got := r["contents"].([]any)[0].(map[string]any)
		if got["uri"] != uri || got["mimeType"] != "text/plain" || got["text"] != "same" {
			t.Errorf("read %d: %v", i, got)
		}
	}
	if cached[0].URI != "" || cached[0].MIMEType != "" {
		t.Errorf("the function's contents were changed: %+v", cached[0])
	}
}
