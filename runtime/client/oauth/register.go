package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"

	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/runtime/internal/uri"
)

// Token endpoint authentication methods (RFC 7591 §2, AUTHC-11).
const (
	AuthMethodNone  = "none"
	AuthMethodBasic = "client_secret_basic"
	AuthMethodPost  = "client_secret_post"
)

// Application types of Dynamic Client Registration (AUTHC-10).
const (
	applicationWeb    = "web"
	applicationNative = "native"
)

// Registration is a client's identity at one authorization server: one
// configured in advance (Config.PreRegistered) or one obtained by Dynamic
// Client Registration.
type Registration struct {
	ClientID     string
	ClientSecret string
	// AuthMethod is the token endpoint authentication method: "none",
	// "client_secret_basic" or "client_secret_post". Empty: chosen from
	// the authorization server's token_endpoint_auth_methods_supported
	// (AUTHC-11).
	AuthMethod string

	dynamic bool // obtained by Dynamic Client Registration
}

// clientFor returns the client identity to use at the authorization
// server m (AUTHC-9): credentials pre-registered for its issuer, else the
// Client ID Metadata Document URL when the server accepts those, else a
// registration made earlier, else Dynamic Client Registration. Identities
// are kept per issuer and never presented to another one (AUTHC-17).
func (a *Authorizer) clientFor(ctx context.Context, m *serverMetadata) (*Registration, error) {
	if r, ok := a.cfg.PreRegistered[m.Issuer]; ok {
		return &r, nil
	}
	if a.cfg.ClientMetadataURL != "" && m.ClientIDMetadataDocumentSupported {
		// A metadata-document client id is a URL the server resolves
		// itself: portable across authorization servers (AUTHC-17).
		return &Registration{ClientID: a.cfg.ClientMetadataURL, AuthMethod: AuthMethodNone}, nil
	}
	if len(a.cfg.PreRegistered) > 0 {
		// Credentials exist, for other issuers only: the server moved to an
		// authorization server they were not issued by. A pre-registered
		// client says so rather than registering itself there (AUTHC-17).
		return nil, fmt.Errorf("%w: credentials are pre-registered for other issuers, not %s", ErrAuthorizationServerChanged, m.Issuer)
	}
	a.mu.Lock()
	r := a.clients[m.Issuer]
	a.mu.Unlock()
	if r != nil {
		return r, nil
	}
	if m.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s offers neither client ID metadata documents (with Config.ClientMetadataURL) nor dynamic registration", ErrNoClientRegistration, m.Issuer)
	}
	r, err := a.register(ctx, m)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.clients[m.Issuer] = r
	a.mu.Unlock()
	return r, nil
}

// registrationRequest is the client metadata of RFC 7591 §2 the
// Authorizer sends (AUTHC-10).
type registrationRequest struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	Scope                   string   `json:"scope,omitempty"`
}

type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	Error                   string `json:"error"`
	ErrorDescription        string `json:"error_description"`
}

// applicationType is Config.ApplicationType, else "native" for a loopback
// or custom-scheme redirect URI and "web" for the rest (AUTHC-10).
func (a *Authorizer) applicationType() string {
	if a.cfg.ApplicationType != "" {
		return a.cfg.ApplicationType
	}
	u, err := url.Parse(a.cfg.RedirectURL)
	if err != nil || u.Scheme != "https" || uri.IsLoopback(u.Hostname()) {
		return applicationNative
	}
	return applicationWeb
}

// register performs Dynamic Client Registration (RFC 7591) at m. A
// registration refused for its application type is retried once with the
// other one, unless Config.ApplicationType fixes it (AUTHC-10).
func (a *Authorizer) register(ctx context.Context, m *serverMetadata) (*Registration, error) {
	body := registrationRequest{
		ClientName:    a.cfg.ClientName,
		RedirectURIs:  []string{a.cfg.RedirectURL},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		// A public client unless the server accepts no such thing.
		TokenEndpointAuthMethod: registrationAuthMethod(m.TokenEndpointAuthMethodsSupported),
		ApplicationType:         a.applicationType(),
	}
	r, err := a.postRegistration(ctx, m.RegistrationEndpoint, &body)
	var re *RegistrationError
	if err != nil && a.cfg.ApplicationType == "" && errors.As(err, &re) &&
		(re.Code == "invalid_redirect_uri" || re.Code == "invalid_client_metadata") {
		if body.ApplicationType == applicationNative {
			body.ApplicationType = applicationWeb
		} else {
			body.ApplicationType = applicationNative
		}
		r, err = a.postRegistration(ctx, m.RegistrationEndpoint, &body)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case r.ClientSecret == "":
		r.AuthMethod = AuthMethodNone // nothing else is possible
	case r.AuthMethod == "":
		// RFC 7591 §3.2.1: the server returns what it registered; one that
		// leaves the method out registered the requested one.
		r.AuthMethod = body.TokenEndpointAuthMethod
	}
	return r, nil
}

// registrationAuthMethod picks the method to register with: "none" when
// the server lists it, else a secret-based one it lists; RFC 8414 §2
// makes client_secret_basic the default of an absent list.
func registrationAuthMethod(supported []string) string {
	if len(supported) == 0 {
		return AuthMethodBasic
	}
	for _, m := range []string{AuthMethodNone, AuthMethodBasic, AuthMethodPost} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return AuthMethodNone
}

func (a *Authorizer) postRegistration(ctx context.Context, endpoint string, body *registrationRequest) (*Registration, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: client registration: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("oauth: client registration: %w", err)
	}
	var rr registrationResponse
	jerr := json.Unmarshal(data, &rr)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, &RegistrationError{Status: resp.StatusCode, Code: rr.Error, Description: rr.ErrorDescription}
	}
	if jerr != nil || rr.ClientID == "" {
		return nil, fmt.Errorf("oauth: client registration: the answer carries no client_id")
	}
	return &Registration{ClientID: rr.ClientID, ClientSecret: rr.ClientSecret, AuthMethod: rr.TokenEndpointAuthMethod, dynamic: true}, nil
}

// tokenAuth maps a client's token endpoint authentication to oauth2's
// (AUTHC-11): the registration's method, else the first the server lists
// that the credentials can satisfy (a secret only serves
// client_secret_basic and client_secret_post). The style is always
// explicit: oauth2's auto-detection would send a second token request.
func tokenAuth(r *Registration, supported []string) (secret string, style oauth2.AuthStyle) {
	method := r.AuthMethod
	if method == "" {
		method = AuthMethodNone
		if r.ClientSecret != "" {
			switch {
			case len(supported) == 0 || slices.Contains(supported, AuthMethodBasic):
				method = AuthMethodBasic
			case slices.Contains(supported, AuthMethodPost):
				method = AuthMethodPost
			}
		}
	}
	switch method {
	case AuthMethodBasic:
		return r.ClientSecret, oauth2.AuthStyleInHeader
	case AuthMethodPost:
		return r.ClientSecret, oauth2.AuthStyleInParams
	default: // none: client_id in the body, no secret
		return "", oauth2.AuthStyleInParams
	}
}
