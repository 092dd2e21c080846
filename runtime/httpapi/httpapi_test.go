package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	r := &Response{Header: http.Header{"Link": {
		`<https://api.example.com/x?page=1>; rel="prev", <https://api.example.com/x?page=3&per_page=2&other=z>; rel="next"`,
	}}}
	if got := fmt.Sprint(r.Next("page", "per_page")); got != "map[page:3 per_page:2]" {
		t.Errorf("next: %s", got)
	}
	if got := r.Next("cursor"); got != nil {
		t.Errorf("a link of none of the tool's arguments: %v", got)
	}
	r.Header.Set("Link", `<https://api.example.com/x?page=9>; rel="last"`)
	if got := r.Next("page"); got != nil {
		t.Errorf("no next: %v", got)
	}
}

func TestCutList(t *testing.T) {
	c := &Client{MaxResultBytes: 20}
	kept, said := c.CutList([]byte(`[{"a":"0123456789"},{"a":"0123456789"},{"a":"0123456789"}]`))
	if string(kept) != `[{"a":"0123456789"}]` || !strings.HasPrefix(said, "1 of 3 items shown") {
		t.Errorf("%s %q", kept, said)
	}
	// At least one item, however long; an object is not a list.
	c.MaxResultBytes = 5
	if kept, _ := c.CutList([]byte(`[{"a":"0123456789"},1]`)); string(kept) != `[{"a":"0123456789"}]` {
		t.Errorf("%s", kept)
	}
	if kept, said := c.CutList([]byte(`{"a":"0123456789"}`)); string(kept) != `{"a":"0123456789"}` || said != "" {
		t.Errorf("%s %q", kept, said)
	}
}

func TestAuthAndErrors(t *testing.T) {
	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.RawQuery+"|"+r.Header.Get("Authorization")+"|"+r.Header.Get("Cookie"))
		if r.URL.Path == "/gone" {
			w.WriteHeader(410)
			w.Write([]byte(strings.Repeat("x", 3000)))
			return
		}
		w.Write([]byte("{}"))
	}))
	defer ts.Close()
	c := &Client{BaseURL: ts.URL, Schemes: map[string]Scheme{
		"q":     {Name: "q", Type: "apiKey", In: "query", Param: "key", Env: "X_Q"},
		"basic": {Name: "basic", Type: "http", HTTPScheme: "basic", Env: "X_BASIC", Flag: "basic"},
		"c":     {Name: "c", Type: "apiKey", In: "cookie", Param: "sid", Env: "X_C"},
	}, Credentials: map[string]string{"basic": "u:p", "c": "s 1"}}
	ctx := context.Background()
	// The first way whose schemes all have a credential.
	r := c.NewRequest("op", "GET", "/things/{id}")
	r.Path("id", "a/b")
	if err := r.Auth(ctx, [][]string{{"q"}, {"basic", "c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Do(ctx); err != nil {
		t.Fatal(err)
	}
	if got[0] != "|Basic dTpw|sid=s+1" {
		t.Errorf("sent %q", got[0])
	}
	// None: the error names where each credential goes.
	err := c.NewRequest("op", "GET", "/").Auth(ctx, [][]string{{"q"}})
	var ce *CredentialError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "X_Q") || strings.Contains(err.Error(), "flag") {
		t.Errorf("%v", err)
	}
	// A 4xx is an *Error with its status and the start of its body.
	_, err = c.NewRequest("op", "DELETE", "/gone").Do(ctx)
	if !IsStatus(err, 410) || !strings.Contains(err.Error(), "410 Gone") || !strings.Contains(err.Error(), "(3000 bytes)") || len(err.Error()) > 2200 {
		t.Errorf("%v", err)
	}
	// Refused before anything is sent.
	r = c.NewRequest("op", "POST", "/")
	r.Refuse("its body cannot be sent")
	if _, err := r.Do(ctx); err == nil || !strings.Contains(err.Error(), "its body cannot be sent") || len(got) != 2 {
		t.Errorf("%v (%d requests)", err, len(got))
	}
}

// A file in a form that is not multipart is its base64 text: never dropped.
func TestFileInAURLEncodedForm(t *testing.T) {
	r := (&Client{BaseURL: "http://x"}).NewRequest("op", "POST", "/")
	r.FormField("a", "1")
	r.FormFile("f", []byte{0, 0xff})
	r.SendForm(false)
	body := new(strings.Builder)
	io.Copy(body, r.body)
	if body.String() != "a=1&f=AP8%3D" {
		t.Errorf("%s", body)
	}
}

// A token URL relative to the document is resolved against the API's URL, as OpenAPI 3.1
// resolves relative references against the server's.
func TestRelativeTokenURL(t *testing.T) {
	var paths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		w.Write([]byte(`{"access_token":"t"}`))
	}))
	defer ts.Close()
	c := &Client{BaseURL: ts.URL + "/api/v1", Credentials: map[string]string{"cc": "id:secret"},
		Schemes: map[string]Scheme{"cc": {Name: "cc", Type: "oauth2", TokenURL: "/oauth/token"}}}
	r := c.NewRequest("op", "GET", "/x")
	if err := r.Auth(context.Background(), [][]string{{"cc"}}); err != nil || r.header.Get("Authorization") != "Bearer t" {
		t.Fatalf("%v %q", err, r.header.Get("Authorization"))
	}
	if len(paths) != 1 || paths[0] != "/oauth/token" {
		t.Errorf("token asked at %q", paths)
	}
}
