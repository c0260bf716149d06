package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// clientMetadataURL is the Client ID Metadata Document URL the suite
// expects as client_id where the authorization server supports such
// documents (auth/basic-cimd).
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authContext is MCP_CONFORMANCE_CONTEXT of the auth scenarios that carry
// test data; every member is optional.
type authContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// enterprise-managed authorization
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPIssuer        string `json:"idp_issuer"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	// workload identity
	ValidJWT string `json:"valid_jwt"`
}

// runAuth runs an auth/* scenario: one well-behaved OAuth client for all of
// them (runtime/client/oauth), configured from the scenario's context,
// then tools/list and a call of test-tool. The lifecycle before the calls
// depends on the protocol version (see connectVersion); authorization
// does not.
func runAuth(ctx context.Context, scenario, url, rawContext, version string) error {
	cfg, err := authConfig(scenario, rawContext)
	if err != nil {
		return err
	}
	a, err := oauth.New(cfg)
	if err != nil {
		return err
	}
	c, err := connectVersion(ctx, url, version, &client.Options{Authorizer: a})
	if err != nil {
		return err
	}
	if err := listTools(ctx, c); err != nil {
		return err
	}
	_, err = c.CallTool(ctx, "test-tool", wire.Raw(`{}`))
	return err
}

// connectVersion connects for the protocol version the suite runs the
// scenario at (MCP_CONFORMANCE_PROTOCOL_VERSION): for an initialize-based
// version, a client that speaks only that version and opens the
// connection with initialize (so initialize is the first request, the one
// that draws the 401); for 2026-07-28, or no version (-discover), the
// default dual-era client, which probes with server/discover and speaks
// whichever era the server answers in.
func connectVersion(ctx context.Context, url, version string, opts *client.Options) (*client.Client, error) {
	switch version {
	case "", mcp.ProtocolVersion:
	case mcp20251125.ProtocolVersion, "2025-06-18", "2025-03-26":
		opts.Versions = []string{version}
	default:
		return nil, fmt.Errorf("protocol version %s is not one this client speaks", version)
	}
	return connect(ctx, url, opts)
}

// authConfig is the oauth.Config for a scenario: the authorization code
// grant (headless: the suite's authorization server approves at once), a
// Client ID Metadata Document URL and offline_access, with the
// pre-registered credentials or extension grant the scenario supplies.
func authConfig(scenario, rawContext string) (*oauth.Config, error) {
	var sc authContext
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	cfg := &oauth.Config{
		HandleAuthorization: oauth.Headless(nil),
		RedirectURL:         "http://localhost:3000/callback",
		ClientName:          "mcpgen-fixture-client",
		ClientMetadataURL:   clientMetadataURL,
		OfflineAccess:       true,
	}
	switch strings.TrimPrefix(scenario, "auth/") {
	case "pre-registration":
		cfg.PreRegistered = map[string]oauth.Registration{sc.Issuer: {ClientID: sc.ClientID, ClientSecret: sc.ClientSecret}}
	case "client-credentials-basic":
		cfg.ClientCredentials = &oauth.ClientCredentials{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret}
	case "client-credentials-jwt":
		key, err := parsePrivateKey(sc.PrivateKeyPEM)
		if err != nil {
			return nil, err
		}
		cfg.ClientCredentials = &oauth.ClientCredentials{ClientID: sc.ClientID, PrivateKey: key,
			Algorithm: jose.SignatureAlgorithm(sc.SigningAlgorithm)}
	case "enterprise-managed-authorization":
		cfg.EnterpriseManaged = &oauth.EnterpriseManaged{
			IDPTokenEndpoint: sc.IDPTokenEndpoint,
			IDPIssuer:        sc.IDPIssuer,
			IDPClientID:      sc.IDPClientID,
			IDToken:          func(context.Context) (string, error) { return sc.IDPIDToken, nil },
			ClientID:         sc.ClientID,
			ClientSecret:     sc.ClientSecret,
		}
	case "wif-jwt-bearer":
		cfg.JWTBearer = &oauth.JWTBearer{ClientID: sc.ClientID,
			Assertion: func(context.Context) (string, error) { return sc.ValidJWT, nil }}
	case "dpop", "dpop-nonce":
		cfg.DPoP = &oauth.DPoP{}
	}
	return cfg, nil
}

// parsePrivateKey reads a PEM private key (PKCS #8, or SEC 1 for EC).
func parsePrivateKey(pemText string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("private_key_pem: no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, fmt.Errorf("private_key_pem: a %T cannot sign", k)
	}
	k, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	return k, nil
}
