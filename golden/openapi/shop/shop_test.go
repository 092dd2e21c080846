package shop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/httpapi"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// api is a fake of the shop's API: it records what it was sent and answers as the document says.
type api struct {
	t    *testing.T
	got  []string // method, path, query, and body of each request
	auth []string
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.got = append(a.got, r.Method+" "+r.URL.RequestURI()+" "+string(body))
	a.auth = append(a.auth, r.Header.Get("X-API-Key")+r.Header.Get("Authorization"))
	product := `{"id":"p_1","name":"Dune","price":9.5,"category":"books","offer":{"kind":"discount","percent":10},"unknown":"skipped"}`
	switch {
	case r.Method == "GET" && r.URL.Path == "/products":
		w.Header().Set("Link", `<https://shop.example.com/v1/products?page=3&per_page=2>; rel="next", <https://shop.example.com/v1/products?page=9>; rel="last"`)
		w.Write([]byte("[" + product + "," + strings.Replace(product, "p_1", "p_2", 1) + "]"))
	case r.Method == "POST" && r.URL.Path == "/products":
		w.WriteHeader(201)
		w.Write([]byte(product))
	case r.URL.Path == "/products/p_404":
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(404)
		w.Write([]byte(`{"title":"Not Found","detail":"no product p_404"}`))
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/products/"):
		w.Write([]byte(product))
	case r.Method == "DELETE":
		w.WriteHeader(204)
	case r.Method == "PUT" && strings.HasSuffix(r.URL.Path, "/attributes"):
		// Stored as sent, with a measure of its own besides.
		w.Write(append(body[:len(body)-1], `,"depth":{"value":3}}`...))
	case r.Method == "PUT":
		w.Header().Set("Content-Type", "image/png")
		w.Write(body)
	case strings.HasSuffix(r.URL.Path, "/manual"):
		// Each part: its field, its file name (none for a value), its type and content.
		mr, err := multipart.NewReader(bytes.NewReader(body), strings.TrimPrefix(r.Header.Get("Content-Type"), "multipart/form-data; boundary=")), error(nil)
		var parts []string
		for err == nil {
			var p *multipart.Part
			if p, err = mr.NextPart(); err == nil {
				data, _ := io.ReadAll(p)
				parts = append(parts, fmt.Sprintf("%s %q %s %q", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), data))
			}
		}
		a.got[len(a.got)-1] = r.Method + " " + r.URL.Path + " " + strings.Join(parts, "; ")
		w.WriteHeader(204)
	case r.URL.Path == "/stats":
		w.Write([]byte(`{"visits":3,"carts":{"open":1}}`))
	case r.URL.Path == "/orders":
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("order o_1 placed"))
	default:
		w.WriteHeader(500)
	}
}

func connect(t *testing.T, creds map[string]string) (*mcptest.Client, *api, *Client) {
	a := &api{t: t}
	ts := httptest.NewServer(a)
	t.Cleanup(ts.Close)
	c := NewClient(ts.URL)
	c.Credentials = creds
	srv := mcp.NewServer(mcp.Implementation{Name: "shop", Version: "1.2.0"}, nil)
	RegisterMCP(srv, Tools{API: c})
	return mcptest.Connect(t, srv), a, c
}

func TestCallsTheAPI(t *testing.T) {
	c, a, _ := connect(t, map[string]string{"apiKey": "k1", "bearer": "t1"})

	// A GET with query parameters: a list, its next page from the Link header.
	res := c.CallTool("listProducts", map[string]any{"category": "books", "tags": []string{"a", "b"}, "page": 2})
	if res.IsError {
		t.Fatal(res.Text())
	}
	var list struct {
		Items []struct{ ID, Name string }
		Next  map[string]string
	}
	if err := json.Unmarshal(res.StructuredContent, &list); err != nil || len(list.Items) != 2 || list.Items[1].ID != "p_2" || list.Next["page"] != "3" || list.Next["per_page"] != "2" {
		t.Errorf("listProducts: %s (%v)", res.StructuredContent, err)
	}
	if want := "GET /products?category=books&page=2&per_page=30&tags=a%2Cb "; a.got[0] != want {
		t.Errorf("sent %q, want %q (the default of per_page applied, tags joined)", a.got[0], want)
	}
	if a.auth[0] != "k1" {
		t.Errorf("X-API-Key: %q", a.auth[0])
	}

	// A POST with a JSON body: the body's properties are the tool's arguments; an optional
	// nullable one sent null is sent null (it clears), and left out is left out.
	res = c.CallTool("createProduct", map[string]any{"name": "Dune", "price": 9.5, "category": "books", "dimensions": nil, "price_or_quote": "ask"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	if want := `POST /products {"name":"Dune","price":9.5,"category":"books","dimensions":null,"price_or_quote":"ask"}`; a.got[1] != want {
		t.Errorf("sent %q, want %q", a.got[1], want)
	}
	if !strings.Contains(string(res.StructuredContent), `"offer":{"kind":"discount","percent":10}`) {
		t.Errorf("createProduct: %s", res.StructuredContent)
	}

	// Path and header parameters.
	res = c.CallTool("getProduct", map[string]any{"productId": "p_1", "X-Request-Id": "8e1f"})
	if res.IsError || a.got[2] != "GET /products/p_1 " {
		t.Errorf("getProduct: %s, sent %q", res.Text(), a.got[2])
	}

	// A form body, an operation that needs no credential.
	res = c.CallTool("placeOrder", map[string]any{"productId": "p_1", "quantity": 2})
	if res.IsError || res.Text() != "order o_1 placed" || a.got[3] != "POST /orders productId=p_1&quantity=2" {
		t.Errorf("placeOrder: %s, sent %q", res.Text(), a.got[3])
	}

	// The three states of an optional nullable property, in a JSON body and in a form (which
	// has no null: null is left out).
	for _, call := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"createProduct", map[string]any{"name": "Dune", "price": 1, "category": "books"}, `POST /products {"name":"Dune","price":1,"category":"books"}`},
		{"createProduct", map[string]any{"name": "Dune", "price": 1, "category": "books", "dimensions": map[string]any{"width": 2, "height": 3}}, `POST /products {"name":"Dune","price":1,"category":"books","dimensions":{"width":2,"height":3}}`},
		{"placeOrder", map[string]any{"productId": "p_1", "quantity": 1, "note": nil}, "POST /orders productId=p_1&quantity=1"},
		{"placeOrder", map[string]any{"productId": "p_1", "quantity": 1, "note": "gift"}, "POST /orders note=gift&productId=p_1&quantity=1"},
	} {
		n := len(a.got)
		if res := c.CallTool(call.tool, call.args); res.IsError || a.got[n] != call.want {
			t.Errorf("%s %v: %s, sent %q, want %q", call.tool, call.args, res.Text(), a.got[n], call.want)
		}
		a.got, a.auth = a.got[:n], a.auth[:n]
	}

	// A free-form object: its JSON as the result's text, with no output schema to hold it to.
	res = c.CallTool("getStats", map[string]any{})
	if res.IsError || res.Text() != `{"visits":3,"carts":{"open":1}}` || res.StructuredContent != nil {
		t.Errorf("getStats: %v %s %s", res.IsError, res.Text(), res.StructuredContent)
	}
	a.got, a.auth = append(a.got[:4:4], a.got[5:]...), append(a.auth[:4:4], a.auth[5:]...)

	// A binary body, in base64, and a binary answer: an image.
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG"))
	res = c.CallTool("setPicture", map[string]any{"productId": "p_1", "body": png})
	if res.IsError || a.auth[4] != "Bearer t1" || !strings.HasSuffix(a.got[4], "\x89PNG") {
		t.Errorf("setPicture: %s, sent %q with %q", res.Text(), a.got[4], a.auth[4])
	}
}

// A 4xx from the API, an invalid argument and a missing credential are each a tool error
// that says what happened.
func TestToolErrors(t *testing.T) {
	c, a, _ := connect(t, map[string]string{"apiKey": "k1"})
	res := c.CallTool("getProduct", map[string]any{"productId": "p_404"})
	if !res.IsError || !strings.Contains(res.Text(), "404 Not Found") || !strings.Contains(res.Text(), "no product p_404") {
		t.Errorf("a 404: %v %s", res.IsError, res.Text())
	}
	res = c.CallTool("getProduct", map[string]any{"productId": "P-1"})
	if !res.IsError || !strings.Contains(res.Text(), "/productId") || len(a.got) != 1 {
		t.Errorf("an invalid argument: %v %s (the API was called %d times)", res.IsError, res.Text(), len(a.got))
	}
	res = c.CallTool("createProduct", map[string]any{"name": "", "price": -1, "category": "food"})
	if !res.IsError || !strings.Contains(res.Text(), "/name") || !strings.Contains(res.Text(), "/price") || !strings.Contains(res.Text(), "/category") {
		t.Errorf("invalid arguments: %s", res.Text())
	}
	res = c.CallTool("setPicture", map[string]any{"productId": "p_1", "body": "aGk="})
	// A library package names the variable; only a generated server program has flags.
	if !res.IsError || !strings.Contains(res.Text(), "SHOP_BEARER") || strings.Contains(res.Text(), "flag") || len(a.got) != 1 {
		t.Errorf("a missing credential: %s", res.Text())
	}
}

// A list longer than the result may hold is cut, and the result says so.
func TestLongListIsCut(t *testing.T) {
	c, _, client := connect(t, map[string]string{"apiKey": "k1"})
	client.MaxResultBytes = 200
	res := c.CallTool("listProducts", map[string]any{})
	var list struct {
		Items     []json.RawMessage
		Truncated string
	}
	if err := json.Unmarshal(res.StructuredContent, &list); err != nil || len(list.Items) != 1 || !strings.Contains(list.Truncated, "1 of 2 items") {
		t.Errorf("%s", res.StructuredContent)
	}
}

// own serves the shop from Go instead of calling it: API implemented by a type of one's own
// (here one operation; the others are left to the nil API it embeds).
type own struct{ API }

func (own) GetProduct(ctx context.Context, in *GetProductInput) (*Product, error) {
	price := 12.5
	if in.ProductID == "p_negative" {
		price = -1 // breaks the document's minimum: the generated result check refuses it
	}
	return &Product{ID: &in.ProductID, Name: "Made here", Price: price, Category: CategoryGames,
		Offer: &ProductOffer{Bundle: &Bundle{With: []string{"p_2"}}}}, nil
}

func TestServedFromGo(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "shop", Version: "1.2.0"}, nil)
	RegisterMCP(srv, Tools{API: own{}})
	c := mcptest.Connect(t, srv)
	res := c.CallTool("getProduct", map[string]any{"productId": "p_9"})
	want := `{"id":"p_9","name":"Made here","price":12.5,"category":"games","offer":{"kind":"bundle","with":["p_2"]}}`
	if res.IsError || string(res.StructuredContent) != want {
		t.Errorf("getProduct from Go: %v %s, want %s", res.IsError, res.StructuredContent, want)
	}
	if res = c.CallTool("getProduct", map[string]any{"productId": "nope"}); !res.IsError || !strings.Contains(res.Text(), "/productId") {
		t.Errorf("the arguments are validated before the method is called: %s", res.Text())
	}
	if res = c.CallTool("getProduct", map[string]any{"productId": "p_negative"}); !res.IsError || !strings.Contains(res.Text(), "price") {
		t.Errorf("a result that breaks the document: %v %s %s", res.IsError, res.Text(), res.StructuredContent)
	}
}

// An object of properties and other members besides (additionalProperties) is an argument and
// a result as the document has it: the other members reach the API as they were given, come
// back as it answers, each held to its schema, and the tool's schemas say so.
func TestPropertiesAndOthers(t *testing.T) {
	c, a, _ := connect(t, map[string]string{"apiKey": "k1"})
	body := `{"color":"red","height":{"value":2,"unit":"cm"},"weight":{"value":1.5}}`
	res := c.CallTool("setAttributes", map[string]any{"productId": "p_1", "body": json.RawMessage(body)})
	if res.IsError || len(a.got) != 1 || a.got[0] != "PUT /products/p_1/attributes "+body {
		t.Fatalf("setAttributes: %s, sent %q", res.Text(), a.got)
	}
	if want := `{"color":"red","depth":{"value":3},"height":{"value":2,"unit":"cm"},"weight":{"value":1.5}}`; string(res.StructuredContent) != want {
		t.Errorf("result %s, want %s", res.StructuredContent, want)
	}
	res = c.CallTool("setAttributes", map[string]any{"productId": "p_1", "body": map[string]any{"color": "red", "height": map[string]any{"value": -1, "unit": "metres"}, "weight": "heavy"}})
	for _, want := range []string{"/body/height/value", "/body/height/unit", "/body/weight"} {
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("want a problem at %s: %s", want, res.Text())
		}
	}
	if len(a.got) != 1 {
		t.Errorf("the API was called with invalid arguments: %q", a.got)
	}
	var schemas struct {
		In struct {
			Properties struct {
				Body map[string]json.RawMessage
			}
		}
	}
	for _, tool := range c.ListTools() {
		if tool.Name == "setAttributes" {
			json.Unmarshal(tool.InputSchema, &schemas.In)
			var out map[string]json.RawMessage
			json.Unmarshal(tool.OutputSchema, &out)
			if !strings.Contains(string(out["additionalProperties"]), `"minimum":0`) {
				t.Errorf("output schema's additionalProperties: %s", out["additionalProperties"])
			}
		}
	}
	if ap := string(schemas.In.Properties.Body["additionalProperties"]); !strings.Contains(ap, `"maxLength":5`) {
		t.Errorf("input schema's body.additionalProperties: %s", ap)
	}
}

// A multipart form's file fields are bytes: base64 in the arguments (its schema says so, and
// what is not base64 is refused before the API is called), a file part of the bytes each in
// the request, beside the fields of text.
func TestFileFields(t *testing.T) {
	c, a, _ := connect(t, map[string]string{"apiKey": "k1"})
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	res := c.CallTool("uploadManual", map[string]any{"productId": "p_1", "manual": b64("%PDF-1.7\x00\xff"), "title": "Setup", "pages": []string{b64("page 1"), b64("page 2")}})
	want := `POST /products/p_1/manual manual "manual" application/octet-stream "%PDF-1.7\x00\xff"; title ""  "Setup"; ` +
		`pages "pages" application/octet-stream "page 1"; pages "pages" application/octet-stream "page 2"`
	if res.IsError || len(a.got) != 1 || a.got[0] != want {
		t.Fatalf("uploadManual: %s\nsent %q\nwant %q", res.Text(), a.got, want)
	}
	res = c.CallTool("uploadManual", map[string]any{"productId": "p_1", "manual": "not base64!"})
	if !res.IsError || !strings.Contains(res.Text(), "/manual") || len(a.got) != 1 {
		t.Errorf("a file that is not base64: %s (the API was called %d times)", res.Text(), len(a.got))
	}
	for _, tool := range c.ListTools() {
		if tool.Name == "uploadManual" {
			var s struct {
				Properties map[string]struct {
					ContentEncoding string
					Items           struct{ ContentEncoding string }
				}
			}
			json.Unmarshal(tool.InputSchema, &s)
			if s.Properties["manual"].ContentEncoding != "base64" || s.Properties["pages"].Items.ContentEncoding != "base64" {
				t.Errorf("input schema: %s", tool.InputSchema)
			}
		}
	}
}

// tokens is a token endpoint of OAuth 2.0's client credentials grant: it records the requests
// and answers with a token, or refuses.
type tokens struct {
	got    []string // each request: its client credentials and form
	refuse bool
}

func (k *tokens) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, secret, _ := r.BasicAuth()
	r.ParseForm()
	k.got = append(k.got, r.Method+" "+id+":"+secret+" "+r.PostForm.Encode())
	w.Header().Set("Content-Type", "application/json")
	if k.refuse {
		w.WriteHeader(401)
		w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client shop-bot"}`))
		return
	}
	w.Write([]byte(`{"access_token":"tok-1","token_type":"Bearer","expires_in":3600}`))
}

// An operation of an OAuth 2.0 client credentials scheme: the client gets a token from the
// token endpoint with the client's id and secret, sends it to the API as a bearer token, and
// keeps it for the next call; a refusal of the token endpoint is a tool error that says so,
// and the API is not called.
func TestClientCredentials(t *testing.T) {
	k := &tokens{}
	ts := httptest.NewServer(k)
	t.Cleanup(ts.Close)
	c, a, client := connect(t, map[string]string{"partner": "shop-bot:s3cret"})
	client.Schemes = maps.Clone(client.Schemes)
	partner := client.Schemes["partner"]
	partner.TokenURL = ts.URL + "/oauth/token" // the document's, on this machine
	client.Schemes["partner"] = partner
	for range 2 {
		if res := c.CallTool("getStats", map[string]any{}); res.IsError {
			t.Fatal(res.Text())
		}
	}
	if want := []string{"POST shop-bot:s3cret grant_type=client_credentials"}; !slices.Equal(k.got, want) {
		t.Errorf("token requests %q, want %q (one, the token kept)", k.got, want)
	}
	if want := []string{"Bearer tok-1", "Bearer tok-1"}; !slices.Equal(a.auth, want) {
		t.Errorf("the API got %q, want %q", a.auth, want)
	}

	c, a, client = connect(t, map[string]string{"partner": "shop-bot:wrong"})
	client.Schemes = map[string]httpapi.Scheme{"partner": partner}
	k.refuse = true
	res := c.CallTool("getStats", map[string]any{})
	for _, want := range []string{"getting a token for security scheme partner", "401 Unauthorized", "unknown client shop-bot"} {
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("a refusal: want %q in %s", want, res.Text())
		}
	}
	if len(a.got) != 0 {
		t.Errorf("the API was called without a token: %q", a.got)
	}

	// Not client_id:client_secret: said, and nothing sent.
	c, _, _ = connect(t, map[string]string{"partner": "just-a-token"})
	n := len(k.got)
	if res := c.CallTool("getStats", map[string]any{}); !res.IsError || !strings.Contains(res.Text(), "client_id:client_secret") || len(k.got) != n {
		t.Errorf("a credential of another form: %s", res.Text())
	}
}
