// Command oidcop is a real, independent OpenID provider for mcpgen's authorization tests:
// the example OP of github.com/zitadel/oidc/v3 (v3.51.17), with what an MCP authorization
// server needs on top of it. Its access tokens are JWTs (signed with the key at {issuer}/keys)
// whose audience is the resource the client named (RFC 8707) besides the client, with a
// scope claim (RFC 9068); their lifetime is ACCESS_TOKEN_LIFETIME.
//
// It listens on 127.0.0.1:$PORT (0, the default, picks a free port) and prints
// "ISSUER=http://HOST:PORT" on stdout (HOST is ISSUER_HOST, default 127.0.0.1). JWT_CLIENTS
// (default "native,web") are the clients whose access tokens are JWTs; the api client may
// introspect every token. Its clients are the example's: native (public,
// PKCE), web and api (secret "secret"); REDIRECT_URI (comma-separated) sets their redirect
// URIs, and any loopback host and port is taken for native's. Its user is
// test-user@localhost, password verysecure, who logs in at /login/username.
//
// It is a module of its own: the OP needs a newer Go than mcpgen asks of its users.
package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

type resourceKey struct{}

type mcpStorage struct {
	*storage.Storage
	jwtClients map[string]bool
	lifetime   time.Duration // of access tokens; 0: the example's
	mu         sync.Mutex
	resources  map[string][]string // auth request ID -> resource values
	tokenAud   map[string][]string // access token ID -> aud
	rtAud      map[string][]string // refresh token -> aud
}

type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }

func (s *mcpStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil || !s.jwtClients[id] {
		return c, err
	}
	return jwtClient{c}, nil
}

func (s *mcpStorage) CreateAuthRequest(ctx context.Context, r *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	req, err := s.Storage.CreateAuthRequest(ctx, r, userID)
	if res, _ := ctx.Value(resourceKey{}).([]string); err == nil && len(res) > 0 {
		s.mu.Lock()
		s.resources[req.GetID()] = res
		s.mu.Unlock()
	}
	return req, err
}

// audAuthRequest changes only the audience (used for the JWT access token and the ID token).
type audAuthRequest struct {
	*storage.AuthRequest
	aud []string
}

func (a audAuthRequest) GetAudience() []string { return a.aud }

func (s *mcpStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	req, err := s.Storage.AuthRequestByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	res := s.resources[req.GetID()]
	s.mu.Unlock()
	if len(res) == 0 {
		return req, nil
	}
	return audAuthRequest{req.(*storage.AuthRequest), append(slices.Clone(res), req.GetClientID())}, nil
}

// the example storage type-switches on *storage.AuthRequest to record the client id
func unwrap(r op.TokenRequest) op.TokenRequest {
	if a, ok := r.(audAuthRequest); ok {
		return a.AuthRequest
	}
	return r
}

func (s *mcpStorage) remember(id string, r op.TokenRequest) {
	s.mu.Lock()
	s.tokenAud[id] = r.GetAudience()
	s.mu.Unlock()
}

func (s *mcpStorage) CreateAccessToken(ctx context.Context, r op.TokenRequest) (string, time.Time, error) {
	id, exp, err := s.Storage.CreateAccessToken(ctx, unwrap(r))
	if err == nil {
		s.remember(id, r)
	}
	return id, s.expiry(exp), err
}

// expiry is when an access token made now expires: ACCESS_TOKEN_LIFETIME from now, if set.
func (s *mcpStorage) expiry(exp time.Time) time.Time {
	if s.lifetime > 0 {
		return time.Now().Add(s.lifetime)
	}
	return exp
}

func (s *mcpStorage) CreateAccessAndRefreshTokens(ctx context.Context, r op.TokenRequest, cur string) (string, string, time.Time, error) {
	id, rt, exp, err := s.Storage.CreateAccessAndRefreshTokens(ctx, unwrap(r), cur)
	if err == nil {
		s.remember(id, r)
		s.mu.Lock()
		s.rtAud[rt] = r.GetAudience()
		s.mu.Unlock()
	}
	return id, rt, s.expiry(exp), err
}

// keep the resource audience on refresh (the example stores aud=[client_id])
func (s *mcpStorage) TokenRequestByRefreshToken(ctx context.Context, rt string) (op.RefreshTokenRequest, error) {
	r, err := s.Storage.TokenRequestByRefreshToken(ctx, rt)
	s.mu.Lock()
	aud := s.rtAud[rt]
	s.mu.Unlock()
	if x, ok := r.(*storage.RefreshTokenRequest); ok && err == nil && len(aud) > 0 {
		x.Audience = aud
	}
	return r, err
}

// op.CanGetPrivateClaimsFromRequest: adds an RFC 9068 style "scope" claim.
func (s *mcpStorage) GetPrivateClaimsFromRequest(ctx context.Context, r op.TokenRequest, restricted []string) (map[string]any, error) {
	var clientID string
	if c, ok := r.(interface{ GetClientID() string }); ok {
		clientID = c.GetClientID()
	}
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, r.GetSubject(), clientID, restricted)
	if err != nil {
		return nil, err
	}
	if claims == nil {
		claims = map[string]any{}
	}
	claims["scope"] = strings.Join(r.GetScopes(), " ")
	return claims, nil
}

func (s *mcpStorage) SetIntrospectionFromToken(ctx context.Context, resp *oidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	s.mu.Lock()
	aud := s.tokenAud[tokenID]
	s.mu.Unlock()
	asClient := clientID
	if clientID == "api" && len(aud) > 0 {
		asClient = aud[len(aud)-1] // the client the token was issued to
	}
	if err := s.Storage.SetIntrospectionFromToken(ctx, resp, tokenID, subject, asClient); err != nil {
		return err
	}
	resp.Audience = aud
	resp.Issuer = op.IssuerFromContext(ctx)
	resp.TokenType = "Bearer"
	return nil
}

func main() {
	port := envOr("PORT", "0")
	host := envOr("ISSUER_HOST", "127.0.0.1")
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		log.Fatal(err)
	}
	issuer := fmt.Sprintf("http://%s:%d", host, ln.Addr().(*net.TCPAddr).Port) // no trailing slash

	var redirects []string
	if v := os.Getenv("REDIRECT_URI"); v != "" {
		redirects = strings.Split(v, ",")
	}
	storage.RegisterClients(
		storage.NativeClient("native", redirects...),
		storage.WebClient("web", "secret", redirects...),
		storage.WebClient("api", "secret", redirects...),
	)
	jwt := map[string]bool{}
	for _, c := range strings.Split(envOr("JWT_CLIENTS", "native,web"), ",") {
		jwt[strings.TrimSpace(c)] = true
	}
	// "localhost" keeps the stock user name test-user@localhost
	st := &mcpStorage{
		Storage:    storage.NewStorage(storage.NewUserStore("http://localhost:0/")),
		jwtClients: jwt,
		resources:  map[string][]string{},
		tokenAud:   map[string][]string{},
		rtAud:      map[string][]string{},
	}
	if v := os.Getenv("ACCESS_TOKEN_LIFETIME"); v != "" {
		if st.lifetime, err = time.ParseDuration(v); err != nil {
			log.Fatalf("ACCESS_TOKEN_LIFETIME: %v", err)
		}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	router := exampleop.SetupServer(issuer, st, logger, false)

	authPath := "/auth" // exampleop uses op.WithCustomAuthEndpoint(op.NewEndpoint("auth"))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == authPath {
			if err := r.ParseForm(); err == nil && len(r.Form["resource"]) > 0 {
				r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, r.Form["resource"]))
			}
		}
		router.ServeHTTP(w, r)
	})
	fmt.Printf("ISSUER=%s\n", issuer)
	log.Fatal(http.Serve(ln, h))
}

func envOr(k, d string) string {
	if v, ok := os.LookupEnv(k); ok && v != "" {
		return v
	}
	return d
}
