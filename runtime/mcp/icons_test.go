package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Icons reach a client of 2025-11-25 or later on the server's info, tools, resources,
// templates and prompts, whole (src, mimeType, sizes, theme), on either era; a client of
// an older revision gets none, since its schema has no place for them.
func TestIconsReachClientsThatHaveThem(t *testing.T) {
	logo := []Icon{
		{Src: "https://example.com/logo.png", MIMEType: "image/png", Sizes: []string{"48x48", "96x96"}},
		{Src: "data:image/svg+xml;base64,PHN2Zy8+", Sizes: []string{"any"}, Theme: IconDark},
	}
	srv := NewServer(Implementation{Name: "iconic", Version: "1", Description: "Has icons.", Icons: logo, WebsiteURL: "https://example.com"},
		&ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(Tool{Name: "t", InputSchema: `{"type":"object"}`, Icons: logo, Handler: func(ctx context.Context, c *ToolCall) {}})
	srv.AddResource(Resource{URI: "r://x", Name: "x", Icons: logo, Read: func(context.Context, string) ([]ResourceContents, error) { return nil, nil }})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "r://{y}", Name: "y", Icons: logo,
		Read: func(context.Context, string, map[string]string) ([]ResourceContents, error) { return nil, nil }})
	srv.AddPrompt(Prompt{Name: "p", Icons: logo, Get: func(context.Context, *Input) (*GetPromptResult, error) { return &GetPromptResult{}, nil }})

	for _, tc := range []struct {
		version string
		want    []Icon
	}{
		{StatelessProtocolVersion, logo},
		{StatefulProtocolVersion, logo},
		{"2025-06-18", nil},
		{"2024-11-05", nil},
	} {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			c := connect(t, &MemoryTransport{Server: srv}, &ClientOptions{ProtocolVersion: tc.version, Logger: slog.New(slog.DiscardHandler)})
			info := c.Server()
			wantInfo := Implementation{Name: "iconic", Version: "1"}
			if tc.want != nil {
				wantInfo = Implementation{Name: "iconic", Version: "1", Description: "Has icons.", Icons: logo, WebsiteURL: "https://example.com"}
			}
			if !reflect.DeepEqual(info.Implementation, wantInfo) {
				t.Errorf("server info %+v, want %+v", info.Implementation, wantInfo)
			}
			tools, err := c.ListTools(ctx)
			if err != nil || len(tools) != 1 || !reflect.DeepEqual(tools[0].Icons, tc.want) {
				t.Errorf("tool icons %v (%v), want %v", iconsOf(tools), err, tc.want)
			}
			resources, err := c.ListResources(ctx)
			if err != nil || len(resources) != 1 || !reflect.DeepEqual(resources[0].Icons, tc.want) {
				t.Errorf("resource icons %v (%v), want %v", iconsOf(resources), err, tc.want)
			}
			templates, err := c.ListResourceTemplates(ctx)
			if err != nil || len(templates) != 1 || !reflect.DeepEqual(templates[0].Icons, tc.want) {
				t.Errorf("template icons %v (%v), want %v", iconsOf(templates), err, tc.want)
			}
			prompts, err := c.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || !reflect.DeepEqual(prompts[0].Icons, tc.want) {
				t.Errorf("prompt icons %v (%v), want %v", iconsOf(prompts), err, tc.want)
			}
		})
	}
}

func iconsOf[T any](items []*T) any {
	if len(items) != 1 {
		return items
	}
	return reflect.ValueOf(items[0]).Elem().FieldByName("Icons").Interface()
}

// An icon a client could not show (no src) is left out; null members read as absent.
func TestReadIconsForgives(t *testing.T) {
	var tool Tool
	d := jsonwire.NewDecoder([]byte(`{"name":"t","inputSchema":{"type":"object"},"icons":[{"mimeType":"image/png"},{"src":"https://x/a.png","sizes":null,"theme":null},null]}`))
	tool.decode(d)
	if d.Finish(); d.Failed() {
		t.Fatal(d.Summary())
	}
	if want := []Icon{{Src: "https://x/a.png"}}; !reflect.DeepEqual(tool.Icons, want) {
		t.Errorf("icons %+v, want %+v", tool.Icons, want)
	}
}

// In the stateless revision the server's info rides in the _meta of every result: there it
// is the identity alone (name, title, version), so that icons, which may be data: URIs of
// kilobytes, are not repeated in every answer; server/discover's carries all of it.
func TestIconsOnlyWhereTheServerIntroducesItself(t *testing.T) {
	srv := NewServer(Implementation{Name: "iconic", Version: "1", Description: "Has icons.", Icons: []Icon{{Src: "https://example.com/logo.png"}}},
		&ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	conn := srv.ServeMemory(t.Context())
	defer conn.Close()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct{ method, want string }{
		{"server/discover", `"io.modelcontextprotocol/serverInfo":{"name":"iconic","version":"1","description":"Has icons.","icons":[{"src":"https://example.com/logo.png"}]}`},
		{"tools/list", `"io.modelcontextprotocol/serverInfo":{"name":"iconic","version":"1"}}`},
	} {
		if err := conn.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":{` + meta + `}}`)); err != nil {
			t.Fatal(err)
		}
		got, err := conn.Receive(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: %s\nwant it to hold %s", tc.method, got, tc.want)
		}
	}
}

// A session's server learns what the client says of itself in initialize, as the
// revision has it: its title from 2025-06-18, its icons, description and website from
// 2025-11-25 (Request.ClientInfo). It learned the name and version alone before.
func TestServerLearnsTheClientsInfo(t *testing.T) {
	icons := []Icon{{Src: "https://client.example/icon.png", Sizes: []string{"32x32"}}}
	srv := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(Tool{Name: "who", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) {
		info := RequestFrom(ctx).ClientInfo()
		c.ReturnText(info.Name + "|" + info.Title + "|" + info.Version + "|" + info.Description + "|" + info.WebsiteURL + "|" + fmt.Sprint(info.Icons))
	}})
	info := Implementation{Name: "c", Title: "The Client", Version: "2", Description: "Asks.", Icons: icons, WebsiteURL: "https://client.example"}
	for version, want := range map[string]string{
		"2025-11-25": "c|The Client|2|Asks.|https://client.example|[{https://client.example/icon.png  [32x32] }]",
		"2025-06-18": "c|The Client|2|||[]",
		"2025-03-26": "c||2|||[]",
	} {
		c := connect(t, &MemoryTransport{Server: srv}, &ClientOptions{ProtocolVersion: version, Info: info, Logger: slog.New(slog.DiscardHandler)})
		res, err := c.CallTool(context.Background(), "who", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := TextOf(res.Content); got != want {
			t.Errorf("%s: the server learned %q, want %q", version, got, want)
		}
	}
}
