package mcpgen_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/contract"
	"github.com/mcpgen/mcpgen/runtime/mcp/mcpgen"
)

// Package mcp sets every hook this package calls through: a hook added to contract.Hooks
// and not set there would panic in generated code only.
func TestHooksSet(t *testing.T) {
	hooks := reflect.ValueOf(contract.Hooks)
	for i := range hooks.NumField() {
		if hooks.Field(i).IsNil() {
			t.Errorf("package mcp does not set contract.Hooks.%s", hooks.Type().Field(i).Name)
		}
	}
}

// A tool's handler written as mcpgen writes them: decode the arguments, check the result,
// encode it, set its text; and one whose result breaks its output schema.
func TestToolThroughTheContract(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(mcp.Tool{Name: "double", InputSchema: `{"type":"object"}`, OutputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *mcp.ToolCall) {
			args := c.Arguments()
			d := mcpgen.Decoder(args)
			var n int64
			for key := range d.Members {
				if string(key) == "n" {
					n, _ = d.Int()
				} else {
					d.Skip()
				}
			}
			if err := args.Err(); err != nil {
				c.ReturnError(err)
				return
			}
			if n > 100 {
				mcpgen.Checker(c).Report("n is too big")
			}
			if !mcpgen.ResultOK(c) {
				return
			}
			e := mcpgen.Structured(c)
			e.ObjectStart()
			e.Key("n")
			e.Int(2 * n)
			e.ObjectEnd()
			mcpgen.SetText(c, append(mcpgen.TextBuffer(c), "doubled"...))
		}})
	for _, tc := range []struct{ args, want string }{
		{`{"n":21}`, `{"content":[{"type":"text","text":"doubled"}],"structuredContent":{"n":42}}`},
		{`{"n":"x"}`, `"isError":true`},
		{`{"n":101}`, `breaks its output schema`},
	} {
		got, err := srv.CallTool(t.Context(), "double", []byte(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("double(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

type name struct{ Name string }

// A form registered with AddForm decodes the answers to Elicit; a schema that is not a JSON
// object panics, saying which type's form it is.
func TestAddForm(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcpgen.AddForm(srv, `{"type":"object","properties":{"Name":{"type":"string"}}}`, func(d *jsonwire.Decoder, v *name) {
		for key := range d.Members {
			if string(key) == "Name" {
				v.Name, _ = d.String()
			} else {
				d.Skip()
			}
		}
	})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "mcpgen_test.name") {
			t.Errorf("AddForm with a schema that is not an object: recovered %v", r)
		}
	}()
	mcpgen.AddForm(srv, `[]`, func(*jsonwire.Decoder, *name) {})
}

func TestTemplateInput(t *testing.T) {
	in := mcpgen.TemplateInput("items://7/true", map[string]string{"id": "7", "ok": "true", "name": "7"}, "id", "ok")
	if got := string(mcpgen.Decoder(in).Raw()); got != `{"id":7,"name":"7","ok":true}` {
		t.Errorf("TemplateInput = %s", got)
	}
	if err := in.Err(); err != nil {
		t.Error(err)
	}
}

func TestContents(t *testing.T) {
	if got := mcpgen.BlobContents("b://x", nil); got[0].Blob == nil || got[0].URI != "b://x" {
		t.Errorf("BlobContents(nil) = %+v, want an empty blob", got)
	}
	if got := mcpgen.TextContents("t://x", "hi"); got[0].Text != "hi" || got[0].URI != "t://x" {
		t.Errorf("TextContents = %+v", got)
	}
}
