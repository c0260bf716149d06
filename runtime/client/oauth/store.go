package oauth

import (
	"context"
	"sync"

	"golang.org/x/oauth2"
)

// TokenKey names the tokens of one resource at one authorization server:
// tokens are kept per issuer and resource (AUTHC-21), so a server that
// moves to another authorization server never gets the old one's tokens
// (AUTHC-17).
type TokenKey struct {
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// Resource is the protected resource (the MCP server's canonical URI,
	// as its Protected Resource Metadata names it).
	Resource string
}

// A TokenStore keeps tokens between requests and, when it persists them,
// between runs. Implementations must be safe for concurrent use and should
// keep refresh tokens confidential (AUTHC-21): encrypted at rest, never
// logged.
type TokenStore interface {
	// Load returns the token stored under key, or nil and no error when
	// there is none.
	Load(ctx context.Context, key TokenKey) (*oauth2.Token, error)
	// Save stores tok under key; a nil tok deletes the entry.
	Save(ctx context.Context, key TokenKey, tok *oauth2.Token) error
}

// MemoryStore is a TokenStore in memory: tokens last as long as the
// process. The zero value is ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[TokenKey]*oauth2.Token
}

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, key TokenKey) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key], nil
}

// Save implements TokenStore.
func (s *MemoryStore) Save(_ context.Context, key TokenKey, tok *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok == nil {
		delete(s.m, key)
		return nil
	}
	if s.m == nil {
		s.m = map[TokenKey]*oauth2.Token{}
	}
	s.m[key] = tok
	return nil
}
