package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/openapi"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// mcpgen openapi on real documents nobody here wrote (e2e/openapi/documents.tsv: registry
// packages, fetched into .cache/openapi by scripts/test.sh), and its servers called through
// Stoplight's Prism, a mock of any OpenAPI document (pinned by e2e/openapi/package-lock.json).

// openapiDocs are the documents generated, built and vetted, of every version and both
// formats; GitHub's (1,223 operations) and Kubernetes' (1,014, Swagger 2.0) take minutes to
// build on this project's machine and are left to docs/openapi.md's figures.
var openapiDocs = []string{"petstore2.yaml", "petstore3.yaml", "traintravel.json", "dialogporten.json", "directus.json", "rclone.yaml", "blockfrost.yaml"}

// openapiDoc is the path of a fetched document.
func openapiDoc(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", ".cache", "openapi", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not fetched: run ./scripts/test.sh, which fetches e2e/openapi/documents.tsv (or: source scripts/lib.sh; openapi_documents): %v", name, err)
	}
	return path
}

// openapiModule is a module that builds generated packages against this checkout.
func openapiModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The checkout's requirements, which its packages need, and the checkout itself.
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	requires := regexp.MustCompile(`(?s)\nrequire \(.*?\n\)\n`).FindAll(mod, -1)
	gomod := fmt.Sprintf("module example.com/apis\n\ngo 1.25.0\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n%s\nreplace github.com/mcpgen/mcpgen => %s\n", bytes.Join(requires, nil), root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var toolCount = regexp.MustCompile(`: (\d+) tools \(`)

// generateAPI runs mcpgen openapi and returns the number of tools it says it wrote.
func generateAPI(t *testing.T, dir string, args ...string) int {
	t.Helper()
	cmd := exec.Command(mcpgenBin, append([]string{"openapi"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpgen openapi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	m := toolCount.FindSubmatch(out)
	if m == nil {
		t.Fatalf("mcpgen openapi said no tool count: %s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func runIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// Every document generates a server that builds, vets, and lists the tools it was said to.
func TestOpenAPIRealDocuments(t *testing.T) {
	mod := openapiModule(t)
	want, docOf := map[string]int{}, map[string]string{}
	for _, doc := range openapiDocs {
		name := strings.SplitN(doc, ".", 2)[0]
		want[name], docOf[name] = generateAPI(t, mod, "--main", "-o", name, openapiDoc(t, doc)), doc
	}
	runIn(t, mod, "go", "vet", "./...")
	runIn(t, mod, "go", "build", "-o", "bin/", "./...")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for name, n := range want {
		checkInputSchemas(t, ctx, filepath.Join(mod, "bin", name), openapiDoc(t, docOf[name]))
		// A tool per operation; by default past 100 operations, a catalog of three.
		for _, mode := range []string{"all", "auto"} {
			c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: filepath.Join(mod, "bin", name), Args: []string{"--tools", mode}}, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tools, err := c.ListTools(ctx)
			c.Close()
			wantN := n
			if mode == "auto" && n > 100 {
				wantN = 3
			}
			if err != nil || len(tools) != wantN || n == 0 {
				t.Errorf("%s --tools %s lists %d tools (%v), want %d (mcpgen openapi said %d)", name, mode, len(tools), err, wantN, n)
			}
		}
	}
}

// startPrism starts Prism's mock of a document and returns its URL.
func startPrism(t *testing.T, doc string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("openapi", "node_modules", ".bin", "prism"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Prism is not installed: run ./scripts/test.sh, which installs e2e/openapi (or: cd e2e/openapi && npm ci): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "mock", "--host", "127.0.0.1", "-p", strconv.Itoa(port), doc)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	var seen strings.Builder
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if seen.Len() < 4000 {
				seen.WriteString(s.Text() + "\n")
			}
			if strings.Contains(s.Text(), "Prism is listening") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("Prism stopped:\n%s", seen.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatal("Prism did not start in 90 s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// call calls a tool and returns its result's text and whether it is an error.
func callTool(t *testing.T, c *mcp.Client, tool string, args map[string]any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, tool, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return mcp.TextOf(res.Content), res.IsError
}

// The petstore's server, generated and built, called through Prism's mock over stdio and
// Streamable HTTP: a GET with a path parameter, a list from query parameters, a POST with a
// body; a missing credential, an invalid argument and a 4xx from the API are tool errors
// that say what happened.
func TestOpenAPIThroughPrism(t *testing.T) {
	doc := openapiDoc(t, "petstore3.yaml")
	mod := openapiModule(t)
	generateAPI(t, mod, "--main", "-o", "petstore", doc)
	runIn(t, mod, "go", "build", "-o", "bin/", "./petstore")
	bin := filepath.Join(mod, "bin", "petstore")
	base := startPrism(t, doc)
	creds := []string{"PETSTORE_API_KEY=k", "PETSTORE_PETSTORE_AUTH=t"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	stdio, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: bin, Args: []string{"--base-url", base}, Env: creds}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()
	cmd, url, stderr := launchEnv(t, append(os.Environ(), creds...), bin, "--base-url", base)
	defer stopProcess(t, cmd, stderr)
	overHTTP, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()

	for transport, c := range map[string]*mcp.Client{"stdio": stdio, "http": overHTTP} {
		t.Run(transport, func(t *testing.T) {
			if text, isErr := callTool(t, c, "getPetById", map[string]any{"petId": 1}); isErr || !strings.Contains(text, `"photoUrls"`) {
				t.Errorf("getPetById (GET, a path parameter): %v %s", isErr, text)
			}
			if text, isErr := callTool(t, c, "findPetsByStatus", map[string]any{"status": []string{"available", "sold"}}); isErr || !strings.Contains(text, `"items"`) {
				t.Errorf("findPetsByStatus (GET, a list): %v %s", isErr, text)
			}
			if text, isErr := callTool(t, c, "placeOrder", map[string]any{"petId": 7, "quantity": 2, "status": "placed"}); isErr || !strings.Contains(text, `"shipDate"`) {
				t.Errorf("placeOrder (POST with a body): %v %s", isErr, text)
			}
			if text, isErr := callTool(t, c, "getOrderById", map[string]any{"orderId": 11}); !isErr || !strings.Contains(text, "/orderId") {
				t.Errorf("an invalid argument: %v %s", isErr, text)
			}
			if text, isErr := callTool(t, c, "addPet", map[string]any{"name": "doggie", "photoUrls": []string{"u"}}); !isErr || !strings.Contains(text, "405") {
				t.Errorf("a 4xx from the API (the petstore's addPet answers only 405): %v %s", isErr, text)
			}
		})
	}

	// The catalog: the same operation through call_operation.
	cat, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: bin, Args: []string{"--base-url", base, "--tools", "catalog"}, Env: creds}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if text, isErr := callTool(t, cat, "call_operation", map[string]any{"name": "getPetById", "arguments": map[string]any{"petId": 1}}); isErr || !strings.Contains(text, `"photoUrls"`) {
		t.Errorf("call_operation getPetById: %v %s", isErr, text)
	}
	if text, isErr := callTool(t, cat, "call_operation", map[string]any{"name": "getOrderById", "arguments": map[string]any{"orderId": 11}}); !isErr || !strings.Contains(text, "/orderId") {
		t.Errorf("call_operation with an invalid argument: %v %s", isErr, text)
	}

	bare, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: bin, Args: []string{"--base-url", base}, Env: []string{"PETSTORE_API_KEY="}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if text, isErr := callTool(t, bare, "getPetById", map[string]any{"petId": 1}); !isErr || !strings.Contains(text, "PETSTORE_API_KEY") || !strings.Contains(text, "--api-key") {
		t.Errorf("a missing credential: %v %s", isErr, text)
	}
}

// A multipart upload through Prism: the Swagger 2.0 petstore's uploadFile (a formData
// parameter of type file) takes the file in base64, and the generated server sends it as a
// file part of a multipart form, which Prism's mock validates against the document and
// answers; what is not base64 is refused before anything is sent.
func TestOpenAPIFileThroughPrism(t *testing.T) {
	doc := openapiDoc(t, "petstore2.yaml")
	mod := openapiModule(t)
	generateAPI(t, mod, "--main", "-o", "petstore2", doc)
	runIn(t, mod, "go", "build", "-o", "bin/", "./petstore2")
	base := startPrism(t, doc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: filepath.Join(mod, "bin", "petstore2"), Args: []string{"--base-url", base},
		Env: []string{"PETSTORE2_PETSTORE_AUTH=t"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	file := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n a picture"))
	if text, isErr := callTool(t, c, "uploadFile", map[string]any{"petId": 7, "additionalMetadata": "front", "file": file}); isErr || !strings.Contains(text, `"code"`) {
		t.Errorf("uploadFile: %v %s", isErr, text)
	}
	if text, isErr := callTool(t, c, "uploadFile", map[string]any{"petId": 7, "file": "a picture"}); !isErr || !strings.Contains(text, "/file") {
		t.Errorf("a file not in base64: %v %s", isErr, text)
	}
}

// --check passes on a package current with its document and names the operations that
// changed when the document changes.
func TestOpenAPICheckCatchesAChangedDocument(t *testing.T) {
	mod := openapiModule(t)
	data, err := os.ReadFile(openapiDoc(t, "petstore3.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(mod, "petstore.yaml")
	if err := os.WriteFile(doc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	generateAPI(t, mod, "-o", "petstore", "petstore.yaml")
	check := func(args ...string) (string, int) {
		if len(args) == 0 {
			args = []string{"openapi", "--check", "-o", "petstore", "petstore.yaml"}
		}
		cmd := exec.Command(mcpgenBin, args...)
		cmd.Dir = mod
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := check(); code != 0 {
		t.Fatalf("--check of a current package: exit %d\n%s", code, out)
	}
	if out, code := check("check", "./petstore"); code != 0 {
		t.Fatalf("mcpgen check of a current package: exit %d\n%s", code, out)
	}
	changed := strings.Replace(string(data), "Returns a single pet", "Returns one pet", 1)
	changed = strings.Replace(changed, "  '/user/logout':", "  /user/ping:\n    get:\n      operationId: ping\n      responses:\n        '204':\n          description: pong\n  '/user/logout':", 1)
	if err := os.WriteFile(doc, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"check", "./petstore"}} {
		// mcpgen check generates the package again from the document it records.
		out, code := check(args...)
		if code != 1 || !strings.Contains(out, "changed: getPetById (GET /pet/{petId})") || !strings.Contains(out, "added: ping (GET /user/ping)") || strings.Contains(out, "changed: addPet") {
			t.Errorf("%v of a changed document: exit %d\n%s", args, code, out)
		}
	}
}

// mcpgen new --from-openapi makes a project that serves the document's operations beside its
// example tool: it vets, its own tests pass (mcpgen check of package api against the copied
// document among them), and it lists both, an operation without its credential refused with
// the variable to set.
func TestNewFromOpenAPI(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	spec, err := filepath.Abs(filepath.Join("..", "golden", "openapi", "shop", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := mcpgen(t, work, "new", "--from-openapi", spec, "shopfront"); code != 0 {
		t.Fatalf("mcpgen new --from-openapi: exit %d\n%s%s", code, out, errOut)
	}
	dir := filepath.Join(work, "shopfront")
	runCmd(t, dir, "go", "vet", "./...")
	runCmd(t, dir, "go", "test", "./...")
	runCmd(t, dir, "go", "build", "-o", "shopfront", ".")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: filepath.Join(dir, "shopfront"), Env: []string{"SHOPFRONT_APIKEY="}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if err != nil || strings.Join(names, " ") != "count_words createProduct deleteProduct getProduct getStats listProducts placeOrder setAttributes setPicture uploadManual" {
		t.Errorf("tools: %v %v", names, err)
	}
	if text, isErr := callTool(t, c, "getProduct", map[string]any{"productId": "p_1"}); !isErr || !strings.Contains(text, "SHOPFRONT_APIKEY") || strings.Contains(text, "flag") {
		t.Errorf("an operation without its credential: %v %s", isErr, text)
	}
}

// checkInputSchemas checks every tool's input schema, as the server lists it: valid JSON
// Schema (2020-12, which a client compiles), and agreeing with the document on the
// arguments: the properties are the operation's parameters and body properties (or body),
// and those required are those the document requires.
func checkInputSchemas(t *testing.T, ctx context.Context, bin, docPath string) {
	t.Helper()
	src, err := openapi.Read(ctx, docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := openapi.Generate(doc, openapi.Options{Dir: t.TempDir(), Package: "x", PlanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]*openapi.Tool{}
	for _, tl := range res.Tools {
		plans[tl.Name] = tl
	}
	c, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: bin, Args: []string{"--tools", "all"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tl.InputSchema))
		if err == nil {
			comp := jsonschema.NewCompiler()
			if err = comp.AddResource("mem://"+tl.Name, v); err == nil {
				_, err = comp.Compile("mem://" + tl.Name)
			}
		}
		if err != nil {
			t.Errorf("%s: %s: its input schema is not valid JSON Schema: %v", filepath.Base(bin), tl.Name, err)
			continue
		}
		var got struct {
			Properties map[string]json.RawMessage
			Required   []string
		}
		json.Unmarshal([]byte(tl.InputSchema), &got)
		var want struct {
			Properties map[string]json.RawMessage
			Required   []string
		}
		if p := plans[tl.Name]; p == nil {
			t.Errorf("%s: %s is not an operation of the document", filepath.Base(bin), tl.Name)
			continue
		} else if p.Input != nil {
			json.Unmarshal(p.Input, &want)
		}
		gotKeys, wantKeys := slices.Sorted(maps.Keys(got.Properties)), slices.Sorted(maps.Keys(want.Properties))
		slices.Sort(got.Required)
		slices.Sort(want.Required)
		if !slices.Equal(gotKeys, wantKeys) || !slices.Equal(got.Required, want.Required) {
			t.Errorf("%s: %s: arguments %v (required %v), the document's %v (required %v)", filepath.Base(bin), tl.Name, gotKeys, got.Required, wantKeys, want.Required)
		}
	}
}
