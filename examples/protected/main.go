// Command protected is an MCP server that only callers with a token from its authorization
// server may use: an OAuth 2.1 resource server, as the specification's authorization pages
// describe. It checks JWT access tokens against the issuer's keys (issuer, audience: this
// server, expiry), serves its protected resource metadata, and refuses a tool call whose
// token lacks the tool's scopes.
//
//	protected -issuer https://auth.example.com -http :8080 -resource https://files.example.com/mcp
//
// mcpgen's client (and `mcpgen call --url`) authorizes with it through the issuer. It prints
// "serving MCP at URL" on stderr once it listens.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protect"
)

//go:generate go tool mcpgen

// WhoAmI says who the caller is, by the verified token: subject and scopes.
//
//mcp:tool whoami readonly
func WhoAmI(ctx context.Context) string {
	a := mcp.AuthInfoFrom(ctx)
	return a.Subject + " " + strings.Join(a.Scopes, " ")
}

// DeleteInput names a file.
type DeleteInput struct {
	// The file to delete.
	Path string `json:"path"`
}

// DeleteFile deletes a file of the caller's (nothing is deleted: it says what it would do).
// It needs the files:write scope.
//
//mcp:tool destructive scopes=files:write
func DeleteFile(ctx context.Context, in DeleteInput) (string, error) {
	return "deleted " + in.Path + " for " + mcp.AuthInfoFrom(ctx).Subject, nil
}

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "serve at `host:port` (port 0 picks a free one)")
	issuer := flag.String("issuer", "", "the authorization server whose tokens are taken (`URL`, required)")
	jwks := flag.String("jwks", "", "where the issuer's signing keys are (`URL`; default: from the issuer's metadata)")
	resource := flag.String("resource", "", "this server's canonical `URI`, the audience its tokens name (default: http://ADDR/mcp)")
	scopes := flag.String("scopes", "openid", "the `scopes` a client asks for to use the server, space-separated")
	leeway := flag.Duration("leeway", time.Minute, "the clock skew allowed on the tokens' times")
	flag.Parse()
	if *issuer == "" {
		fmt.Fprintln(os.Stderr, "protected: -issuer is required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	url := mcp.LocalURL(ln.Addr(), "/mcp")
	if *resource == "" {
		*resource = url
	}
	// Why a token was refused is the server's to know, not the caller's: it is logged (at
	// info level), and the caller gets a plain invalid_token.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1.0.0"}, &mcp.ServerOptions{Logger: logger})
	RegisterMCP(srv)
	verifier := &protect.JWT{Issuer: *issuer, JWKSURL: *jwks, Audience: *resource, Leeway: *leeway}
	if err := verifier.Validate(); err != nil { // at startup, not at the first request
		fmt.Fprintln(os.Stderr, "protected:", err)
		os.Exit(2)
	}
	auth := &mcp.AuthOptions{
		Verifier:             verifier,
		Resource:             *resource,
		AuthorizationServers: []string{*issuer},
		ScopesSupported:      strings.Fields(*scopes),
		ResourceName:         "protected, an mcpgen example",
	}
	fmt.Fprintf(os.Stderr, "serving MCP at %s\n", url)
	if err := srv.ServeHTTPListener(ctx, ln, &mcp.HTTPOptions{Auth: auth}); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}
