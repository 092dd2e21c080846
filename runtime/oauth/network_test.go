package oauth

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeDNS answers A queries for the names in zone with their addresses, NOERROR without
// answers for AAAA, NXDOMAIN for every other name; it becomes net.DefaultResolver for the
// test (the Go resolver still reads /etc/hosts first, so localhost stays what it is).
func fakeDNS(t *testing.T, zone map[string][]netip.Addr) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsAnswer(buf[:n], zone); resp != nil {
				pc.WriteTo(resp, from)
			}
		}
	}()
	old := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	t.Cleanup(func() { net.DefaultResolver = old; pc.Close(); <-done })
}

// dnsAnswer is the answer to the DNS query q from zone, or nil for a query it cannot read.
func dnsAnswer(q []byte, zone map[string][]netip.Addr) []byte {
	// The question: labels from offset 12, then its type and class.
	i, labels := 12, []string{}
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	addrs, known := zone[strings.ToLower(strings.Join(labels, "."))]
	flags := uint16(0x8180) // a response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	var answers []byte
	count := 0
	for _, a := range addrs {
		if qtype != 1 || !a.Is4() {
			continue
		}
		ip := a.As4()
		answers = append(append(answers, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4), ip[:]...)
		count++
	}
	resp := append([]byte{}, q[:2]...)
	resp = binary.BigEndian.AppendUint16(resp, flags)
	resp = binary.BigEndian.AppendUint16(resp, 1)
	resp = binary.BigEndian.AppendUint16(resp, uint16(count))
	resp = append(resp, 0, 0, 0, 0)
	resp = append(resp, q[12:i+5]...)
	return append(resp, answers...)
}

// A server on the internet cannot make itself count as local (and so turn off the guard
// that keeps its authorization out of the user's network) with its DNS: what counts is the
// address its challenge came from, not what its name resolves to. twofaced.attacker.test
// has a second record, 127.0.0.1, on which it does not serve; before, any address that was
// not public made the server local, and the user's machine got GET /admin/delete-all.
// Through a proxy (here on the user's machine) the server counts as public.
func TestServerIsLocalByTheAddressItAnswersFrom(t *testing.T) {
	// As in TestNoRequestsIntoTheUsersNetwork: 127.0.0.2 is the public internet.
	publicAddr = func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") }
	t.Cleanup(func() { publicAddr = isPublicAddr })

	var mu sync.Mutex
	var hits []string
	victim := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer victim.Close()
	port := victim.Listener.Addr().(*net.TCPAddr).Port
	tr := victim.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com"
	hc := &http.Client{Transport: tr}

	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="https://localhost:%d/admin/delete-all"`, port))
		w.WriteHeader(http.StatusUnauthorized)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	mcpPort := ln.Addr().(*net.TCPAddr).Port

	fakeDNS(t, map[string][]netip.Addr{
		"public.attacker.test": {netip.MustParseAddr("127.0.0.2")},
		// The same server, with one more record naming an address it does not serve on.
		"twofaced.attacker.test": {netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")},
	})
	// A proxy on the user's machine, which the server's connection goes to: the server
	// behind it counts as public, wherever it is.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	proxied := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	defer proxied.CloseIdleConnections()

	for name, tc := range map[string]struct {
		url  string
		base http.RoundTripper
	}{
		"a public name":          {url: fmt.Sprintf("http://public.attacker.test:%d/mcp", mcpPort)},
		"a name with two faces":  {url: fmt.Sprintf("http://twofaced.attacker.test:%d/mcp", mcpPort)},
		"through a local proxy":  {url: fmt.Sprintf("http://public.attacker.test:%d/mcp", mcpPort), base: proxied},
		"an address, by a proxy": {url: fmt.Sprintf("http://127.0.0.2:%d/mcp", mcpPort), base: proxied},
	} {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			hits = nil
			mu.Unlock()
			rt := &Transport{Base: tc.base, Config: &Config{HTTPClient: hc, RedirectURL: "http://127.0.0.1:9/callback", Authorize: FollowRedirect(nil)}}
			_, err := post(t, &http.Client{Transport: rt}, tc.url)
			mu.Lock()
			defer mu.Unlock()
			if len(hits) > 0 {
				t.Errorf("the user's machine got %v (%v)", hits, err)
			}
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("got %v, want the metadata's fetch refused", err)
			}
		})
	}
}

// An IPv6 address that carries an IPv4 address of the user's network reaches that network
// (through NAT64, 6to4, Teredo or the IPv4-compatible and -translated forms), and the
// deprecated site-local addresses are a network's own: none is public. Their public
// counterparts are.
func TestEmbeddedIPv4IsJudgedAsIPv4(t *testing.T) {
	for _, a := range []string{"64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b:1::c0a8:101", "64:ff9b:1::808:808",
		"2002:a00:1::1", "2002:7f00:1::1", "::a00:1", "::7f00:1", "::ffff:0:a00:1", "::ffff:a00:1", "fec0::1", "2001:0:4136:e378:8000:63bf:f5ff:fffe"} {
		if isPublicAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s: public", a)
		}
	}
	for _, a := range []string{"64:ff9b::808:808", "2002:808:808::1", "2001:4860:4860::8888", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", "8.8.8.8"} {
		if !isPublicAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s: not public", a)
		}
	}
}

// Plain http is taken only to what is this machine's loopback for certain: a loopback
// address, or exactly localhost (the hosts file's). Go's resolver asks the network's DNS
// server for "localhost." and for names under localhost, so whoever answers there would
// decide where a plain-http token request or JWKS fetch goes; the fake DNS server here
// sends them to 192.0.2.7.
func TestPlainHTTPOnlyToCertainLoopback(t *testing.T) {
	fakeDNS(t, map[string][]netip.Addr{"localhost": {netip.MustParseAddr("192.0.2.7")}, "app.localhost": {netip.MustParseAddr("192.0.2.7")}})
	for _, host := range []string{"localhost.", "app.localhost", "APP.LOCALHOST."} {
		addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip4", host)
		if err != nil || len(addrs) == 0 || addrs[0].IsLoopback() {
			t.Fatalf("%s resolves to %v (%v): the fake DNS server is not asked", host, addrs, err)
		}
		if err := CheckEndpoint("http://" + host + "/token"); err == nil {
			t.Errorf("http://%s/token: taken as loopback http, and %s resolves to %v", host, host, addrs)
		}
	}
	for _, good := range []string{"http://localhost/token", "http://LocalHost:8080/token", "http://127.0.0.1/token", "http://[::1]:9/token"} {
		if err := CheckEndpoint(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
