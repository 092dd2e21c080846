package host_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpgen/mcpgen/examples/notes"
	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// A host reads .mcp.json and, once its user approved it, connects to every server it names at
// once, and calls their tools by the names it gives them, mcp_{server}_{tool}. The server here is examples/notes, served
// over Streamable HTTP in this process; a server with a "command" is started as a process.
func ExampleLoadConfig() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	notes.RegisterMCP(srv, notes.NewBook(func() time.Time { return time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC) }))
	handler := srv.HTTPHandler(nil)
	web := httptest.NewServer(handler)
	defer web.Close()
	defer handler.Close()

	dir, err := os.MkdirTemp("", "host-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, ".mcp.json")
	os.WriteFile(config, []byte(`{"mcpServers": {"notes": {"type": "http", "url": "`+web.URL+`"}}}`), 0o644)

	cfg, err := host.LoadConfig(config)
	if err != nil {
		log.Fatal(err) // every mistake of the file, each as file:line:col: message
	}
	// A project's .mcp.json is code: its servers start only once the user approved it. A
	// program asks with host.Consent (a recorded approval, or a question at the terminal);
	// this one wrote the file itself.
	if err := cfg.Approve(); err != nil {
		log.Fatal(err)
	}
	h := host.Start(cfg, nil)
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.Ready(ctx) // every server ready, or failed

	for _, t := range h.Tools() {
		fmt.Printf("%s: the tool %s of %s\n", t.Name, t.Tool.Name, t.Server)
	}
	res, err := h.CallTool(ctx, "mcp_notes_add_note", map[string]any{"title": "Book the flights"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res.StructuredContent))
	// Output:
	// mcp_notes_add_note: the tool add_note of notes
	// mcp_notes_delete_note: the tool delete_note of notes
	// mcp_notes_find_notes: the tool find_notes of notes
	// {"id":1,"title":"Book the flights","priority":"normal","created":"2026-07-28T09:00:00Z"}
}

// A configuration with mistakes starts nothing: every problem comes back at once, at its
// line and column, with a hint where one helps.
func ExampleParseConfig() {
	_, err := host.ParseConfig(".mcp.json", []byte(`{
  "mcpServers": {
    "weather": {"command": "./weather", "env": {"API_KEY": "${WEATHER_KEY}"}},
    "search": {"type": "ws", "url": "https://search.example.com"}
  }
}`), func(string) (string, bool) { return "", false })
	var ce *host.ConfigError
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// .mcp.json:3:60: environment variable WEATHER_KEY is not set
	//	hint: set it, or give a default: ${WEATHER_KEY:-value}
	// .mcp.json:4:37: url "https://search.example.com" of server "search" is not a ws:// or wss:// URL
	//	hint: a WebSocket endpoint is ws:// or wss://, such as "wss://example.com/mcp"; an http:// or https:// endpoint is "type": "http"
}
