package schema

import (
	"context"
	"math/big"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// registers reports whether the runtime accepts a tool with the input schema: it panics at
// AddTool on annotations that break the rules.
func registers(schema string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "0"}, nil)
	srv.AddTool(mcp.Tool{Name: "t", InputSchema: schema, Handler: func(context.Context, *mcp.ToolCall) {}})
	return true
}

// TestHeaderProblemsAgreeWithRuntime checks that what mcpgen lets through, the runtime
// registers, and that what the runtime refuses, mcpgen reports. mcpgen is stricter: it
// also reports annotations the runtime ignores (off the properties path) and integers
// without bounds, which clients must reject.
func TestHeaderProblemsAgreeWithRuntime(t *testing.T) {
	prop := func(p string) string { return `{"type":"object","properties":{"a":` + p + `}}` }
	cases := []struct {
		schema   string
		problems int
		runtime  bool // the runtime registers it
	}{
		{prop(`{"type":"string","x-mcp-header":"A"}`), 0, true},
		{prop(`{"type":"boolean","x-mcp-header":"A"}`), 0, true},
		{prop(`{"type":"integer","minimum":-5,"maximum":5,"x-mcp-header":"A"}`), 0, true},
		{prop(`{"type":"integer","enum":[1,2],"x-mcp-header":"A"}`), 0, true},
		{prop(`{"type":"integer","exclusiveMinimum":-9007199254740992,"exclusiveMaximum":9007199254740992,"x-mcp-header":"A"}`), 0, true},
		{prop(`{"type":"integer","minimum":0,"maximum":9007199254740992,"x-mcp-header":"A"}`), 1, true},
		{prop(`{"type":"integer","x-mcp-header":"A"}`), 1, true},
		{prop(`{"type":"number","x-mcp-header":"A"}`), 1, false},
		{prop(`{"type":["string","null"],"x-mcp-header":"A"}`), 1, false},
		{prop(`{"oneOf":[{"type":"string"},{"type":"null"}],"x-mcp-header":"A"}`), 1, false},
		{prop(`{"type":"string","x-mcp-header":""}`), 1, false},
		{prop(`{"type":"string","x-mcp-header":"A B"}`), 1, false},
		{prop(`{"type":"string","x-mcp-header":"Ré"}`), 1, false},
		{prop(`{"type":"string","x-mcp-header":true}`), 1, false},
		{prop(`{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}`), 0, true},
		{prop(`{"type":"array","items":{"type":"string","x-mcp-header":"B"}}`), 1, true},
		{prop(`{"oneOf":[{"type":"string","x-mcp-header":"B"}]}`), 1, true},
		{`{"type":"object","x-mcp-header":"Root","properties":{}}`, 1, true},
		{`{"type":"object","$defs":{"D":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}},"properties":{"d":{"$ref":"#/$defs/D"}}}`, 1, true},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"same"}}}`, 1, false},
		{`{"type":"object","properties":{"a":{"type":"string","default":{"x-mcp-header":1},"x-mcp-header":"A"}}}`, 0, true},
		{`{"type":"object","properties":{"x-mcp-header":{"type":"string","x-mcp-header":"A"}}}`, 0, true},
	}
	for _, c := range cases {
		problems := HeaderProblems([]byte(c.schema))
		if len(problems) != c.problems {
			t.Errorf("%s: problems %q, want %d", c.schema, problems, c.problems)
		}
		if got := registers(c.schema); got != c.runtime {
			t.Errorf("%s: the runtime registers it: %v, want %v", c.schema, got, c.runtime)
		}
		if len(problems) == 0 && !c.runtime {
			t.Errorf("%s: mcpgen lets through what the runtime refuses", c.schema)
		}
	}
}

func TestBoundsSafe(t *testing.T) {
	r := func(s string) *big.Rat {
		if s == "" {
			return nil
		}
		v, _ := new(big.Rat).SetString(s)
		return v
	}
	const max, limit = "9007199254740991", "9007199254740992"
	for _, c := range []struct {
		lo, hi, xlo, xhi string
		safe             bool
	}{
		{"-" + max, max, "", "", true},
		{"-" + limit, max, "", "", false},
		{"-" + max, limit, "", "", false},
		{"", "", "-" + limit, limit, true},
		{"", "", "-9007199254740993", limit, false},
		{"0", "9007199254740991.5", "", "", true}, // the largest integer below is 2^53-1
		{"0", "", "", "", false},
		{"", "0", "", "", false},
		{"-1e3", "1e3", "", "", true},
	} {
		if got := boundsSafe(r(c.lo), r(c.hi), r(c.xlo), r(c.xhi)); got != c.safe {
			t.Errorf("bounds %+v: safe %v, want %v", c, got, c.safe)
		}
	}
}
