package auth

import "strings"

// Challenge is one WWW-Authenticate challenge (RFC 9110 §11.6.1) of the
// Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1) scheme, with the
// resource_metadata parameter of RFC 9728 §5.1.
type Challenge struct {
	// Scheme is SchemeBearer or SchemeDPoP.
	Scheme string
	// Error is the error code; empty when the request had no credentials
	// (RFC 6750 §3.1).
	Error string
	// ErrorDescription is a human-readable explanation; characters outside
	// RFC 6750's allowed set are replaced by spaces.
	ErrorDescription string
	// Scope lists the scopes the request needs.
	Scope []string
	// ResourceMetadata is the URL of the Protected Resource Metadata.
	ResourceMetadata string
	// Algs are the DPoP proof algorithms accepted (DPoP scheme only).
	Algs []string
}

// String renders the challenge, every parameter a quoted string:
// Bearer error="invalid_token", error_description="…", scope="a b", resource_metadata="…".
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString(c.Scheme)
	sep := " "
	param := func(name, value string) {
		b.WriteString(sep)
		sep = ", "
		b.WriteString(name)
		b.WriteString(`="`)
		for i := 0; i < len(value); i++ {
			if ch := value[i]; ch == '"' || ch == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(value[i])
		}
		b.WriteByte('"')
	}
	if c.Error != "" {
		param("error", c.Error)
	}
	if c.ErrorDescription != "" {
		param("error_description", sanitizeDescription(c.ErrorDescription))
	}
	if len(c.Scope) > 0 {
		param("scope", strings.Join(c.Scope, " "))
	}
	if c.ResourceMetadata != "" {
		param("resource_metadata", c.ResourceMetadata)
	}
	if len(c.Algs) > 0 {
		param("algs", strings.Join(c.Algs, " "))
	}
	return b.String()
}

// sanitizeDescription keeps the characters RFC 6750 §3 allows in
// error_description (%x20-21 / %x23-5B / %x5D-7E); others become spaces.
func sanitizeDescription(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = ' '
		}
	}
	return string(b)
}
