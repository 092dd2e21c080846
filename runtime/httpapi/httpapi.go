// Package httpapi is what the HTTP proxies mcpgen openapi generates call: a request built
// from a tool's typed arguments (path, query, header and cookie parameters, a JSON, form or
// multipart body), the credentials of the operation's security requirement, the call with
// its limits, and the answer: a 2xx body for the generated decoder, anything else an
// *Error with the status and the problem the API gave.
//
// Credentials are the program's (flags, the environment), never a tool's arguments: a
// model never sees them.
package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Defaults of a Client's limits.
const (
	DefaultMaxResponseBytes = 8 << 20
	DefaultMaxResultBytes   = 64 << 10
	DefaultTimeout          = time.Minute
)

// Scheme is a security scheme of the document, and where its credential comes from.
type Scheme struct {
	Name       string // as the document names it
	Type       string // apiKey, http, oauth2, openIdConnect
	In         string // apiKey: header, query or cookie
	Param      string // apiKey: the header's, parameter's or cookie's name
	HTTPScheme string // http: bearer, basic (user:password), or another, sent as it is
	TokenURL   string // oauth2 client credentials: the credential is client_id:client_secret
	Env        string // the environment variable that holds the credential
	Flag       string // the generated server's flag that does
}

// Client calls an API. Its zero value is not usable: BaseURL is needed.
type Client struct {
	BaseURL string
	HTTP    *http.Client // nil: a client with DefaultTimeout
	// Schemes are the document's security schemes by name, Credentials their secrets.
	Schemes     map[string]Scheme
	Credentials map[string]string
	Header      http.Header // sent with every request (User-Agent, a token the document names no scheme for)
	// MaxResponseBytes refuses a longer body; MaxResultBytes is what a result may hold for
	// a model: a longer list is cut, and the result says so.
	MaxResponseBytes int64
	MaxResultBytes   int

	mu     sync.Mutex
	tokens map[string]token // oauth2 client credentials, by scheme
}

type token struct {
	value   string
	expires time.Time
}

// Request is one call being built.
type Request struct {
	c       *Client
	op      string
	method  string
	path    string
	query   url.Values
	header  http.Header
	cookies []string
	body    io.Reader
	ctype   string
	errs    []string
	form    url.Values
	files   map[string][][]byte // a multipart form's files, by field
	fields  []string            // the form's fields, in the order added
}

// NewRequest starts a call of the operation op: method and the path template of the
// document (/pets/{petId}).
func (c *Client) NewRequest(op, method, path string) *Request {
	return &Request{c: c, op: op, method: method, path: path, query: url.Values{}, header: http.Header{}}
}

// Path fills a path parameter.
func (r *Request) Path(name, value string) {
	r.path = strings.ReplaceAll(r.path, "{"+name+"}", url.PathEscape(value))
}

// Query adds a query parameter, once per value.
func (r *Request) Query(name string, values ...string) {
	for _, v := range values {
		r.query.Add(name, v)
	}
}

// QueryJoined adds a query parameter whose values are joined by sep (form style without
// explode: ",", spaceDelimited " ", pipeDelimited "|").
func (r *Request) QueryJoined(name, sep string, values []string) {
	if len(values) > 0 {
		r.query.Add(name, strings.Join(values, sep))
	}
}

// Header sets a header parameter.
func (r *Request) Header(name, value string) { r.header.Set(name, value) }

// Cookie adds a cookie parameter.
func (r *Request) Cookie(name, value string) {
	r.cookies = append(r.cookies, name+"="+url.QueryEscape(value))
}

// JSON sets the body to what e wrote.
func (r *Request) JSON(e *jsonwire.Encoder) {
	if err := e.Err(); err != nil {
		r.errs = append(r.errs, "the body: "+err.Error())
		return
	}
	r.body, r.ctype = bytes.NewReader(e.Bytes()), "application/json"
}

// Raw sets the body to data of a media type.
func (r *Request) Raw(contentType string, data []byte) {
	r.body, r.ctype = bytes.NewReader(data), contentType
}

// Base64 sets the body to the bytes a base64 argument holds.
func (r *Request) Base64(contentType, data string) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		r.errs = append(r.errs, "the body must be base64: "+err.Error())
		return
	}
	r.Raw(contentType, b)
}

// Refuse makes the call fail with what it cannot do, before anything is sent.
func (r *Request) Refuse(why string) { r.errs = append(r.errs, why) }

// FormField adds a field of a form body, once per value.
func (r *Request) FormField(name string, values ...string) {
	if r.form == nil {
		r.form = url.Values{}
	}
	if _, ok := r.form[name]; !ok {
		r.fields = append(r.fields, name)
	}
	for _, v := range values {
		r.form.Add(name, v)
	}
}

// FormFile adds a file to a multipart form: a part of the field's name with the data, named
// as a file (the field's name), of type application/octet-stream.
func (r *Request) FormFile(name string, data []byte) {
	if r.files == nil {
		r.files = map[string][][]byte{}
	}
	if _, ok := r.form[name]; !ok && r.files[name] == nil {
		r.fields = append(r.fields, name)
	}
	r.files[name] = append(r.files[name], data)
}

// SendForm sets the body to the form's fields: URL-encoded (a file as base64 text), or a
// multipart form of a part per value and per file.
func (r *Request) SendForm(multi bool) {
	if !multi {
		for _, k := range r.fields {
			for _, data := range r.files[k] {
				r.FormField(k, base64.StdEncoding.EncodeToString(data))
			}
		}
		r.body, r.ctype = strings.NewReader(r.form.Encode()), "application/x-www-form-urlencoded"
		return
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, k := range r.fields {
		for _, v := range r.form[k] {
			w.WriteField(k, v)
		}
		for _, data := range r.files[k] {
			part, _ := w.CreateFormFile(k, k) // writes to memory: no error
			part.Write(data)
		}
	}
	w.Close()
	r.body, r.ctype = &b, w.FormDataContentType()
}

// Auth applies the credentials of the first way of meeting the operation's security
// requirement whose schemes all have one; an empty way needs none. It fails, naming where to
// put them, when none can be met.
func (r *Request) Auth(ctx context.Context, ways [][]string) error {
	if len(ways) == 0 {
		return nil
	}
	for _, way := range ways {
		ok := true
		for _, s := range way {
			if r.c.Credentials[s] == "" {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, s := range way {
			if err := r.apply(ctx, r.c.Schemes[s], r.c.Credentials[s]); err != nil {
				return err
			}
		}
		return nil
	}
	var wants []string
	for _, way := range ways {
		var parts []string
		for _, s := range way {
			sc := r.c.Schemes[s]
			where := "the environment variable " + sc.Env
			if sc.Flag != "" {
				where += " or the flag --" + sc.Flag
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", where, describe(sc)))
		}
		wants = append(wants, strings.Join(parts, " and "))
	}
	return &CredentialError{Op: r.op, Wants: wants}
}

// CredentialError is a call the server has no credential for. It names where the program
// takes them from, which a model cannot set: the server's user must.
type CredentialError struct {
	Op    string
	Wants []string
}

func (e *CredentialError) Error() string {
	return fmt.Sprintf("%s needs a credential the server was not given: set %s, and restart the server", e.Op, strings.Join(e.Wants, ", or "))
}

func describe(s Scheme) string {
	switch s.Type {
	case "apiKey":
		return fmt.Sprintf("security scheme %s: an API key sent in the %s %s", s.Name, s.In, s.Param)
	case "http":
		if s.HTTPScheme == "basic" {
			return fmt.Sprintf("security scheme %s: user:password for HTTP basic authentication", s.Name)
		}
		return fmt.Sprintf("security scheme %s: a %s token", s.Name, s.HTTPScheme)
	case "oauth2":
		if s.TokenURL != "" {
			return fmt.Sprintf("security scheme %s: client_id:client_secret for OAuth 2.0 client credentials at %s", s.Name, s.TokenURL)
		}
		return fmt.Sprintf("security scheme %s: an OAuth 2.0 access token", s.Name)
	}
	return fmt.Sprintf("security scheme %s: an access token", s.Name)
}

func (r *Request) apply(ctx context.Context, s Scheme, secret string) error {
	switch s.Type {
	case "apiKey":
		switch s.In {
		case "query":
			r.query.Set(s.Param, secret)
		case "cookie":
			r.cookies = append(r.cookies, s.Param+"="+url.QueryEscape(secret))
		default:
			r.header.Set(s.Param, secret)
		}
	case "http":
		switch strings.ToLower(s.HTTPScheme) {
		case "basic":
			r.header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(secret)))
		case "bearer", "":
			r.header.Set("Authorization", "Bearer "+secret)
		default:
			r.header.Set("Authorization", s.HTTPScheme+" "+secret)
		}
	case "oauth2":
		if s.TokenURL != "" {
			tok, err := r.c.clientCredentials(ctx, s, secret)
			if err != nil {
				return fmt.Errorf("%s: getting a token for security scheme %s: %w", r.op, s.Name, err)
			}
			secret = tok
		}
		r.header.Set("Authorization", "Bearer "+secret)
	default:
		r.header.Set("Authorization", "Bearer "+secret)
	}
	return nil
}

// Response is a 2xx answer.
type Response struct {
	URL    string // what was asked
	Status int
	Header http.Header
	Body   []byte
}

// Do sends the request. A status other than 2xx is an *Error; a body longer than
// MaxResponseBytes is refused.
func (r *Request) Do(ctx context.Context) (*Response, error) {
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("%s: %s", r.op, strings.Join(r.errs, "; "))
	}
	if r.c.BaseURL == "" {
		return nil, fmt.Errorf("%s: the server has no base URL for the API: give it one (--base-url)", r.op)
	}
	u := strings.TrimSuffix(r.c.BaseURL, "/") + r.path
	if len(r.query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + r.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, r.body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.op, err)
	}
	for k, vs := range r.c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	if len(r.cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(r.cookies, "; "))
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, */*;q=0.5")
	}
	hc := r.c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.op, err)
	}
	defer resp.Body.Close()
	limit := r.c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the response: %w", r.op, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, &Error{Op: r.op, Status: resp.StatusCode, StatusText: resp.Status, Body: body, ContentType: resp.Header.Get("Content-Type")}
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%s: the API answered more than %d bytes, more than the server takes: ask for less (a filter, a smaller page)", r.op, limit)
	}
	return &Response{URL: u, Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

var defaultHTTP = &http.Client{Timeout: DefaultTimeout}

// Error is an answer that is not 2xx: its status and the problem the API described.
type Error struct {
	Op          string
	Status      int
	StatusText  string // "404 Not Found"
	Body        []byte
	ContentType string
}

// maxProblem is how much of a problem's body an error shows.
const maxProblem = 2000

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: the API answered %s", e.Op, e.StatusText)
	body := strings.TrimSpace(string(e.Body))
	if body == "" {
		return msg
	}
	if len(body) > maxProblem {
		body = body[:maxProblem] + fmt.Sprintf("... (%d bytes)", len(e.Body))
	}
	return msg + ": " + body
}

// IsStatus reports whether err is an *Error of that status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}
