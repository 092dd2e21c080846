package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Next is the arguments of the next page, from the response's Link header (RFC 8288,
// rel="next", as GitHub and many others write it): the query parameters of its URL that are
// among args, the tool's own. nil when there is no next page.
func (r *Response) Next(args ...string) map[string]string {
	for _, link := range r.Header.Values("Link") {
		for part := range strings.SplitSeq(link, ",") {
			target, params, ok := strings.Cut(part, ";")
			if !ok || !isNext(params) {
				continue
			}
			target = strings.Trim(strings.TrimSpace(target), "<>")
			u, err := url.Parse(target)
			if err != nil {
				continue
			}
			next := map[string]string{}
			for _, a := range args {
				if v := u.Query().Get(a); v != "" {
					next[a] = v
				}
			}
			if len(next) > 0 {
				return next
			}
		}
	}
	return nil
}

func isNext(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "rel") && strings.Contains(" "+strings.Trim(v, `"`)+" ", " next ") {
			return true
		}
	}
	return false
}

// CutList cuts a JSON array to the elements that fit in the client's MaxResultBytes,
// keeping at least one; what it says, when it cut, is for the result's "truncated".
func (c *Client) CutList(body []byte) (kept []byte, said string) {
	limit := c.MaxResultBytes
	if limit <= 0 {
		limit = DefaultMaxResultBytes
	}
	if len(body) <= limit {
		return body, ""
	}
	d := jsonwire.NewDecoder(body)
	if d.Peek() != jsonwire.Array {
		return body, ""
	}
	out := []byte{'['}
	shown, total := 0, 0
	for range d.Elements {
		raw := d.Raw()
		total++
		if shown > 0 && len(out)+len(raw)+2 > limit {
			continue
		}
		if shown > 0 {
			out = append(out, ',')
		}
		out = append(out, raw...)
		shown++
	}
	d.Finish()
	if d.Failed() || shown == total {
		return body, ""
	}
	out = append(out, ']')
	return out, fmt.Sprintf("%d of %d items shown: the whole list is %d bytes, more than %d; ask for fewer (a smaller page, a filter)", shown, total, len(body), limit)
}

// clientCredentials gets (and keeps until it expires) an OAuth 2.0 access token by the
// client credentials grant; secret is client_id:client_secret.
// resolve makes a URL of the document relative to the API's (OpenAPI 3.1 resolves relative
// references against the server's URL): a token endpoint at /oauth/token.
func (c *Client) resolve(ref string) string {
	u, err := url.Parse(ref)
	if err != nil || u.IsAbs() {
		return ref
	}
	base, err := url.Parse(c.BaseURL)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

func (c *Client) clientCredentials(ctx context.Context, s Scheme, secret string) (string, error) {
	c.mu.Lock()
	if t, ok := c.tokens[s.Name]; ok && time.Now().Before(t.expires) {
		c.mu.Unlock()
		return t.value, nil
	}
	c.mu.Unlock()
	id, pw, ok := strings.Cut(secret, ":")
	if !ok {
		return "", fmt.Errorf("the credential must be client_id:client_secret")
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.resolve(s.TokenURL), strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(pw))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("the token endpoint answered %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	// The token response is not a tool's call path: read with encoding/json.
	var t struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" {
		return "", fmt.Errorf("the token endpoint answered no access_token")
	}
	life := time.Duration(t.ExpiresIn) * time.Second
	if life <= 0 {
		life = time.Hour
	}
	c.mu.Lock()
	if c.tokens == nil {
		c.tokens = map[string]token{}
	}
	c.tokens[s.Name] = token{value: t.AccessToken, expires: time.Now().Add(life * 9 / 10)}
	c.mu.Unlock()
	return t.AccessToken, nil
}

// Content is a binary answer as a tool's content block: an image or audio as itself, other
// bytes as an embedded resource of the request's URL.
func (r *Response) Content() mcp.Content {
	uri := r.URL
	ctype := r.Header.Get("Content-Type")
	base, _, _ := strings.Cut(ctype, ";")
	switch base = strings.TrimSpace(strings.ToLower(base)); {
	case strings.HasPrefix(base, "image/"):
		return mcp.Image{Data: r.Body, MIMEType: base}
	case strings.HasPrefix(base, "audio/"):
		return mcp.Audio{Data: r.Body, MIMEType: base}
	}
	return mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: uri, MIMEType: base, Blob: r.Body}}
}

// Done is the text of a success without a body.
func (r *Response) Done() string {
	return fmt.Sprintf("done: the API answered %d %s", r.Status, http.StatusText(r.Status))
}
