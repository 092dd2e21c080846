package headers

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

func server() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "headers", Version: "0"}, nil)
	RegisterMCP(srv) // panics if the runtime refuses an annotation
	return srv
}

// mirrored finds the x-mcp-header annotations of an input schema as a client does: on
// properties reached through "properties" alone. It returns property path -> header name.
func mirrored(schema map[string]any, path string, out map[string]string) map[string]string {
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		p := p.(map[string]any)
		if h, ok := p["x-mcp-header"].(string); ok {
			out[path+"/"+name] = h
		}
		mirrored(p, path+"/"+name, out)
	}
	return out
}

func inputSchemas(t *testing.T) map[string]map[string]any {
	c := mcptest.Connect(t, server())
	schemas := map[string]map[string]any{}
	for _, tool := range c.ListTools() {
		var s map[string]any
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		schemas[tool.Name] = s
	}
	return schemas
}

func TestAnnotations(t *testing.T) {
	schemas := inputSchemas(t)
	want := map[string]map[string]string{
		"run_query": {
			"/region": "Region", "/tenant": "Tenant-Id", "/dryRun": "Dry-Run", "/shard": "Shard",
			"/account": "Account", "/cost": "Cost", "/serial": "Serial", "/priority": "Priority",
			"/level": "Level", "/zone": "Zone", "/target/cluster": "Cluster",
			"/route/hop/gateway": "Gateway", "/actor": "Actor", "/traceId": "Trace-Id",
		},
		"move": {"/target/cluster": "Cluster"},
	}
	for tool, headers := range want {
		got := mirrored(schemas[tool], "", map[string]string{})
		if !maps.Equal(got, headers) {
			t.Errorf("%s: headers %v, want %v", tool, got, headers)
		}
	}
	// Only the keyword is added: nothing else marks the properties.
	if strings.Count(string(must(json.Marshal(schemas["run_query"]))), "x-mcp-header") != len(want["run_query"]) {
		t.Errorf("run_query has x-mcp-header where no property is mirrored")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// call posts a tools/call of revision 2026-07-28 with the headers a client derives from
// the arguments, changed by edit; it returns the HTTP status and the response.
func call(t *testing.T, url, tool string, args map[string]any, edit func(http.Header)) (int, map[string]any) {
	t.Helper()
	body := must(json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test", "version": "0"},
		},
	}}))
	req := must(http.NewRequest(http.MethodPost, url+"/mcp", bytes.NewReader(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	edit(req.Header)
	resp := must(http.DefaultClient.Do(req))
	defer resp.Body.Close()
	raw := must(io.ReadAll(resp.Body))
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return resp.StatusCode, m
}

func TestHeadersChecked(t *testing.T) {
	hs := httptest.NewServer(server().HTTPHandler(nil))
	defer hs.Close()
	args := map[string]any{
		"region": "eu-west", "tenant": "acme", "dryRun": true, "shard": 7, "account": 9007199254740991,
		"cost": 12, "serial": "-42", "priority": "high", "level": 2, "zone": "b",
		"target": map[string]any{"cluster": "c1", "labels": map[string]any{"x": "y"}},
		"route":  map[string]any{"hop": map[string]any{"gateway": "gw"}},
		"actor":  "ada", "traceId": "t-1", "text": "select",
	}
	good := map[string]string{
		"Region": "eu-west", "Tenant-Id": "acme", "Dry-Run": "true", "Shard": "7", "Account": "9007199254740991",
		"Cost": "12", "Serial": "-42", "Priority": "high", "Level": "2", "Zone": "b", "Cluster": "c1",
		"Gateway": "gw", "Actor": "ada", "Trace-Id": "t-1",
	}
	set := func(h http.Header) {
		for k, v := range good {
			h.Set("Mcp-Param-"+k, v)
		}
	}
	status, m := call(t, hs.URL, "run_query", args, set)
	if res, _ := m["result"].(map[string]any); status != 200 || res == nil || res["isError"] == true {
		t.Fatalf("with matching headers: %d %v", status, m)
	}
	for _, name := range slices.Sorted(maps.Keys(good)) {
		status, m := call(t, hs.URL, "run_query", args, func(h http.Header) {
			set(h)
			h.Set("Mcp-Param-"+name, good[name]+"0")
		})
		if e, _ := m["error"].(map[string]any); status != 400 || e == nil || e["code"] != float64(-32020) {
			t.Errorf("Mcp-Param-%s differs from the body: %d %v, want 400 and -32020", name, status, m)
		}
	}
	// An absent optional property sends no header.
	delete(args, "tenant")
	status, m = call(t, hs.URL, "run_query", args, func(h http.Header) {
		set(h)
		h.Del("Mcp-Param-Tenant-Id")
	})
	if status != 200 {
		t.Errorf("without tenant and its header: %d %v", status, m)
	}
	status, m = call(t, hs.URL, "move", map[string]any{"target": map[string]any{"cluster": "c2"}}, func(h http.Header) {
		h.Set("Mcp-Param-Cluster", "c2")
	})
	if status != 200 {
		t.Errorf("move: %d %v", status, m)
	}
}
