package mcp

import (
	"encoding/json"
	"testing"
)

func TestMarshalResults(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{&CallToolResult{Content: []Content{Text{Text: "hi"}, Image{Data: []byte("x"), MIMEType: "image/png"}}, StructuredContent: []byte(`{"a":1}`), IsError: true},
			`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"eA==","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":true}`},
		{&CallToolResult{}, `{"content":[]}`},
		{&GetPromptResult{Description: "d", Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: "q"}}}},
			`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"q"}}]}`},
		{[]ResourceContents{{URI: "a://b", MIMEType: "text/plain", Text: "t"}, {URI: "a://c", Blob: []byte{0}}},
			`[{"uri":"a://b","mimeType":"text/plain","text":"t"},{"uri":"a://c","blob":"AA=="}]`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %s, %v\nwant %s", c.v, b, err, c.want)
		}
	}
}
