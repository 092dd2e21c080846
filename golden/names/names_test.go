package names

import (
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func TestNames(t *testing.T) {
	srv := rt.NewServer(rt.Implementation{Name: "names", Version: "0"}, nil)
	RegisterMCP(srv, S{})
	cl := mcptest.Connect(t, srv)
	for tool, want := range map[string]string{"s_get": "S.Get", "sget": "SGet", "lower_foo": "foo", "upper_foo": "Foo"} {
		if res := cl.CallTool(tool, nil); res.IsError || res.Text() != want {
			t.Errorf("%s: %s", tool, res.Text())
		}
	}
	if res := cl.CallTool("decode_token", map[string]any{"token": "t"}); res.IsError || res.Text() != "ok t" {
		t.Errorf("decode_token: %s", res.Text())
	}
	if res := cl.CallTool("in", map[string]any{"counts": map[string]int{}, "name": "n", "tags": []string{"a", "b"}}); res.IsError || res.Text() != "n:a,b" {
		t.Errorf("in: %s", res.Text())
	}
	if res := cl.CallTool("in", map[string]any{"counts": map[string]int{}, "name": "", "tags": []string{"abcd"}}); !res.IsError ||
		res.Text() != "invalid arguments for tool in:\n/name: must be at least 1 character long\n/tags/0: must be at most 3 characters long" {
		t.Errorf("in, invalid: %s", res.Text())
	}
	pairs := map[string]any{"a": map[string]any{"value": 1, "next": map[string]any{"value": 2}}, "b": map[string]any{"next": map[string]any{}}, "c": map[string]any{}}
	if res := cl.CallTool("count_pairs", pairs); res.IsError || res.Text() != "3" {
		t.Errorf("count_pairs: %s", res.Text())
	}
	if msgs, rpcErr := cl.GetPrompt("essay", map[string]string{"topic": "Go"}); rpcErr != nil || len(msgs) != 1 {
		t.Errorf("essay: %v %v", msgs, rpcErr)
	}
	var out Out
	res := cl.CallTool("c", map[string]any{"counts": map[string]int{"a": 2}, "name": "abc"})
	if err := res.Structured(&out); err != nil || res.IsError || out.Counts["a"] != "++" || out.Name != "abc" {
		t.Errorf("c: %+v %v %s", out, err, res.Text())
	}
	if res := cl.CallTool("c", map[string]any{"counts": map[string]int{}, "name": "abcdef"}); !res.IsError {
		t.Errorf("c: the result's maxLength was not checked: %s", res.Text())
	}
}
