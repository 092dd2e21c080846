package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/fsclient/filesystem"
	"github.com/mcpgen/mcpgen/golden/import/everything"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// mcpgen import as people use it: the typed client generated from npm's server-everything
// (golden/import/everything) calling every tool of the pinned server over stdio; the
// committed snapshots checked against the pinned servers; drift reported by --check.

func TestImportedClientCallsEveryTool(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	called := map[string]bool{}
	// A client that can answer sampling and elicitation and offers roots, to which the
	// server lists the three tools that use them.
	mc, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "node", Args: []string{serverScript(t, "server-everything"), "stdio"}}, &mcp.ClientOptions{
		Sampling: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.Text{Text: "sampled: " + req.Messages[0].Content.(mcp.Text).Text}, Model: "test-model"}, nil
		},
		Elicitation: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		Roots: []mcp.Root{{URI: "file:///srv/typed-root", Name: "typed-root"}},
		Trace: func(fromServer bool, msg []byte) {
			var m struct {
				Method string
				Params struct{ Name string }
			}
			if json.Unmarshal(msg, &m); !fromServer && m.Method == "tools/call" {
				mu.Lock()
				called[m.Params.Name] = true
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	c := everything.New(mc)

	text := func(what string) func([]mcp.Content, error) string {
		return func(blocks []mcp.Content, err error) string { return textOf(t, what, blocks, err) }
	}
	has := func(what string, blocks []mcp.Content, err error, is func(mcp.Content) bool) {
		t.Helper()
		if err != nil || !slices.ContainsFunc(blocks, is) {
			t.Errorf("%s: %+v, %v", what, blocks, err)
		}
	}

	if got := text("Echo")(c.Echo(ctx, everything.EchoInput{Message: "typed hello"})); got != "Echo: typed hello" {
		t.Errorf("Echo: %q", got)
	}
	if got := text("GetSum")(c.GetSum(ctx, everything.GetSumInput{A: 2, B: 3.5})); !strings.Contains(got, "5.5") {
		t.Errorf("GetSum: %q", got)
	}
	weather, err := c.GetStructuredContent(ctx, everything.GetStructuredContentInput{Location: everything.GetStructuredContentInputLocationChicago})
	if err != nil || weather.Conditions == "" || weather.Humidity == 0 {
		t.Errorf("GetStructuredContent: %+v, %v", weather, err)
	}
	blocks, err := c.GetAnnotatedMessage(ctx, everything.GetAnnotatedMessageInput{MessageType: everything.GetAnnotatedMessageInputMessageTypeSuccess, IncludeImage: mcp.Ptr(true)})
	has("GetAnnotatedMessage", blocks, err, func(b mcp.Content) bool { _, ok := b.(mcp.Image); return ok })
	if got := text("GetEnv")(c.GetEnv(ctx)); !strings.Contains(got, "PATH") {
		t.Errorf("GetEnv: %.80q", got)
	}
	blocks, err = c.GetResourceLinks(ctx, everything.GetResourceLinksInput{Count: mcp.Ptr(2.0)})
	has("GetResourceLinks", blocks, err, func(b mcp.Content) bool { _, ok := b.(mcp.ResourceLink); return ok })
	blocks, err = c.GetResourceReference(ctx, everything.GetResourceReferenceInput{ResourceType: mcp.Ptr(everything.GetResourceReferenceInputResourceTypeText), ResourceID: mcp.Ptr(1.0)})
	has("GetResourceReference", blocks, err, func(b mcp.Content) bool { _, ok := b.(mcp.EmbeddedResource); return ok })
	blocks, err = c.GetTinyImage(ctx)
	has("GetTinyImage", blocks, err, func(b mcp.Content) bool { im, ok := b.(mcp.Image); return ok && im.MIMEType == "image/png" })
	blocks, err = c.GzipFileAsResource(ctx, everything.GzipFileAsResourceInput{Name: mcp.Ptr("hello.txt.gz"),
		Data: mcp.Ptr("data:text/plain;base64,aGVsbG8gd29ybGQ="), OutputType: mcp.Ptr(everything.GzipFileAsResourceInputOutputTypeResource)})
	has("GzipFileAsResource", blocks, err, func(b mcp.Content) bool { _, ok := b.(mcp.EmbeddedResource); return ok })
	// simulate-research-query runs only as a task (2025-11-25's experimental tasks): the typed
	// client's call is a task-augmented one, and returns the task's result.
	got := text("SimulateResearchQuery")(c.SimulateResearchQuery(ctx, everything.SimulateResearchQueryInput{Topic: "Go"}))
	if !strings.Contains(got, "# Research Report: Go") {
		t.Errorf("SimulateResearchQuery: %.80q", got)
	}
	for _, toggle := range []func(context.Context) ([]mcp.Content, error){c.ToggleSimulatedLogging, c.ToggleSimulatedLogging, c.ToggleSubscriberUpdates, c.ToggleSubscriberUpdates} {
		if got := text("toggle")(toggle(ctx)); got == "" {
			t.Error("a toggle said nothing")
		}
	}
	progress := 0
	pctx := mcp.WithProgress(ctx, func(mcp.ProgressNotice) { progress++ })
	if got := text("TriggerLongRunningOperation")(c.TriggerLongRunningOperation(pctx, everything.TriggerLongRunningOperationInput{Duration: mcp.Ptr(1.0), Steps: mcp.Ptr(2.0)})); !strings.Contains(got, "completed") || progress != 2 {
		t.Errorf("TriggerLongRunningOperation: %q, %d progress notices", got, progress)
	}

	if got := text("TriggerSamplingRequest")(c.TriggerSamplingRequest(ctx, everything.TriggerSamplingRequestInput{Prompt: "haiku"})); !strings.Contains(got, "sampled: ") || !strings.Contains(got, "haiku") {
		t.Errorf("TriggerSamplingRequest: %q", got)
	}
	if got := text("TriggerElicitationRequest")(c.TriggerElicitationRequest(ctx)); !strings.Contains(strings.ToLower(got), "decline") {
		t.Errorf("TriggerElicitationRequest: %q", got)
	}
	if got := text("GetRootsList")(c.GetRootsList(ctx)); !strings.Contains(got, "file:///srv/typed-root") {
		t.Errorf("GetRootsList: %q", got)
	}

	mu.Lock()
	for _, tool := range readSnapshotTools(t) {
		if !called[tool] {
			t.Errorf("tool %s was not called through the typed client", tool)
		}
	}
	mu.Unlock()

	// Prompts and resource templates.
	pr, err := c.PromptArgsPrompt(ctx, everything.PromptArgsPromptArgs{City: "Lisbon", State: mcp.Ptr("LX")})
	if err != nil || len(pr.Messages) == 0 || !strings.Contains(pr.Messages[0].Content.(mcp.Text).Text, "Lisbon") {
		t.Errorf("PromptArgsPrompt: %+v, %v", pr, err)
	}
	if pr, err := c.PromptSimplePrompt(ctx); err != nil || len(pr.Messages) == 0 {
		t.Errorf("PromptSimplePrompt: %+v, %v", pr, err)
	}
	contents, err := c.ReadDynamicTextResource(ctx, "1")
	if err != nil || len(contents) != 1 || !strings.Contains(contents[0].URI, "1") || contents[0].Text == "" {
		t.Errorf("ReadDynamicTextResource: %+v, %v", contents, err)
	}
}

func textOf(t *testing.T, what string, blocks []mcp.Content, err error) string {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return ""
	}
	for _, b := range blocks {
		if tx, ok := b.(mcp.Text); ok {
			return tx.Text
		}
	}
	t.Errorf("%s: no text in %+v", what, blocks)
	return ""
}

func readSnapshotTools(t *testing.T) []string {
	var snap struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(everything.Snapshot, &snap); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range snap.Tools {
		names = append(names, tl.Name)
	}
	if len(names) < 10 {
		t.Fatalf("the snapshot has %d tools", len(names))
	}
	return names
}

// The committed snapshots (and the packages generated from them) are those of the pinned
// servers: mcpgen import --check against each finds nothing.
func TestImportCheckAgainstPinnedServers(t *testing.T) {
	t.Parallel()
	for name, stdio := range map[string]string{
		"everything": "node '" + serverScript(t, "server-everything") + "' stdio",
		"filesystem": "node '" + serverScript(t, "server-filesystem") + "' '" + t.TempDir() + "'",
		"memory":     "node '" + serverScript(t, "server-memory") + "'",
		"weather":    weatherBin,
		"gothings":   everythingBin,
	} {
		dir, _ := filepath.Abs(filepath.Join("..", "golden", "import", name))
		if name == "filesystem" {
			dir, _ = filepath.Abs(filepath.Join("..", "examples", "fsclient", "filesystem"))
		}
		out, errOut, code := mcpgen(t, t.TempDir(), "import", "--check", "--stdio", stdio, "-o", dir)
		if code != 0 || out != "" {
			t.Errorf("import --check %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
}

// The snapshot the generator derives from a server's Go code (mcpgen --snapshot, which check
// holds the package to) is what the running server lists: checked for the examples against
// the snapshots taken from their processes.
func TestServerSnapshotMatchesWhatItLists(t *testing.T) {
	t.Parallel()
	for example, imported := range map[string]string{"weather": "weather", "everything": "gothings"} {
		from, _ := filepath.Abs(filepath.Join("..", "examples", example, "mcp_snapshot.json"))
		dir, _ := filepath.Abs(filepath.Join("..", "golden", "import", imported))
		out, errOut, code := mcpgen(t, t.TempDir(), "import", "--check", "--from", from, "-o", dir)
		if code != 0 || out != "" {
			t.Errorf("examples/%s: exit %d\n%s%s", example, code, out, errOut)
		}
	}
}

// A package imported from a server, then the server's schemas changing under it.
func TestImportDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := mcpgen(t, dir, "import", "--stdio", weatherBin)
	if code != 0 || out != "package weatherclient in weatherclient: 1 tools, 0 prompts, 0 resource templates\n" {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"client_gen.go", "snapshot.json"} {
		if _, err := os.Stat(filepath.Join(dir, "weatherclient", f)); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code = mcpgen(t, dir, "import", "--check", "--stdio", weatherBin)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("check right after import: exit %d\n%s%s", code, out, errOut)
	}
	saved := filepath.Join(dir, "weather.json")
	if _, errOut, code = mcpgen(t, dir, "import", "--stdio", weatherBin, "--save", saved); code != 0 {
		t.Fatalf("--save: exit %d\n%s", code, errOut)
	}
	data, _ := os.ReadFile(saved)
	var snap map[string]any
	json.Unmarshal(data, &snap)
	tool := snap["tools"].([]any)[0].(map[string]any)
	props := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)

	// The package was generated when the server had one tool more: the server removed it.
	older := clone(snap)
	older["tools"] = append(older["tools"].([]any), map[string]any{"name": "get_alerts", "inputSchema": map[string]any{"type": "object"}})
	writeJSON(t, saved, older)
	if _, errOut, code = mcpgen(t, dir, "import", "--from", saved, "-o", "weatherclient"); code != 0 {
		t.Fatalf("--from: exit %d\n%s", code, errOut)
	}
	out, errOut, code = mcpgen(t, dir, "import", "--check", "--stdio", weatherBin, "-o", "weatherclient")
	if code != 1 || out != "breaking:   tool get_alerts: removed\n" || !strings.Contains(errOut, "break callers") {
		t.Errorf("a removed tool: exit %d\n%s%s", code, out, errOut)
	}

	// Generated when units did not exist yet: the server added an optional property.
	delete(props, "units")
	writeJSON(t, saved, snap)
	mcpgen(t, dir, "import", "--from", saved, "-o", "weatherclient")
	out, errOut, code = mcpgen(t, dir, "import", "--check", "--stdio", weatherBin, "-o", "weatherclient")
	if code != 0 || out != "compatible: tool get_weather: input /properties/units: added, optional\n" || !strings.Contains(errOut, "note: the server changed compatibly") {
		t.Errorf("an optional property added: exit %d\n%s%s", code, out, errOut)
	}

	// An edited generated file is stale: check says so with a diff, without a server.
	path := filepath.Join(dir, "weatherclient", "client_gen.go")
	code0, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(code0), "func New(", "func NewClient(", 1)), 0o644)
	out, errOut, code = mcpgen(t, dir, "import", "--check", "-o", "weatherclient")
	if code != 1 || !strings.Contains(out, "-func NewClient(") || !strings.Contains(out, "+func New(") || !strings.Contains(errOut, "client_gen.go is stale") {
		t.Errorf("stale file: exit %d\n%s%s", code, out, errOut)
	}
	// Usage errors.
	for _, args := range [][]string{{"import"}, {"import", "a", "b"}, {"import", "--from", saved, "--stdio", "x"}, {"import", "--from", "/no/such.json", "-o", "x"}} {
		if _, _, code := mcpgen(t, dir, args...); code != 2 {
			t.Errorf("mcpgen %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// examples/fsclient, the README's program: the typed client of server-filesystem, run
// against the pinned server.
func TestExampleFSClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("first line\nsecond line\nthird line\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	cmd := exec.Command(fsclientBin, "-server", "node "+serverScript(t, "server-filesystem"), dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"[FILE] notes.txt", "[DIR] sub", "--- notes.txt, first lines:\nfirst line\nsecond line\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "third line") {
		t.Errorf("head=2 read more than two lines:\n%s", out)
	}
}

// The typed client's unions on a real server's payloads: server-filesystem's read_media_file
// answers content items of a tagged union ("type": "image" or "audio", else "resource"), which
// the client generated from the pinned server decodes into its branch and encodes back.
func TestImportedUnionsOnRealPayloads(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	os.WriteFile(filepath.Join(dir, "pixel.png"), png, 0o644)
	var raw []byte
	mc, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: "node", Args: []string{serverScript(t, "server-filesystem"), dir}}, &mcp.ClientOptions{
		Trace: func(fromServer bool, msg []byte) {
			if fromServer && strings.Contains(string(msg), `"structuredContent"`) {
				raw = append([]byte(nil), msg...)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	media, err := filesystem.New(mc).ReadMediaFile(ctx, filesystem.ReadMediaFileInput{Path: filepath.Join(dir, "pixel.png")})
	if err != nil {
		t.Fatal(err)
	}
	if len(media.Content) != 1 {
		t.Fatalf("content %+v", media.Content)
	}
	image, ok := media.Content[0].(filesystem.ReadMediaFileOutputContentItemImageOrAudio)
	if !ok || image.Type != filesystem.ReadMediaFileOutputContentItemImageOrAudioTypeImage || image.MIMEType != "image/png" {
		t.Fatalf("item %#v, want the image branch", media.Content[0])
	}
	if data, err := base64.StdEncoding.DecodeString(image.Data); err != nil || string(data) != string(png) {
		t.Errorf("data %q (%v)", image.Data, err)
	}
	// Encoded back, the result is what the server sent.
	var msg struct {
		Result struct{ StructuredContent json.RawMessage } `json:"result"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(media)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	json.Unmarshal(msg.Result.StructuredContent, &want)
	json.Unmarshal(again, &got)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("encoded back\n%s\nthe server sent\n%s", again, msg.Result.StructuredContent)
	}
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var c map[string]any
	json.Unmarshal(b, &c)
	return c
}

func writeJSON(t *testing.T, path string, v any) {
	b, _ := json.Marshal(v)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
