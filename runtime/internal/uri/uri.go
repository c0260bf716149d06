// Package uri holds the two URI facts the resource server, the OAuth
// client and the HTTP transport share: the canonical form in which
// resource URIs are compared (RFC 8707 and the MCP authorization page's
// canonical server URI), and which hosts are loopback.
package uri

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Canonical returns the comparison form of the absolute URI raw, and raw
// parsed: scheme and host lower-cased, the scheme's default port dropped,
// no "/" for an empty path, the query kept, no fragment. Callers add the
// checks of their side (userinfo, fragment, https).
func Canonical(raw string) (string, *url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, err
	}
	if !u.IsAbs() || u.Host == "" {
		return "", u, fmt.Errorf("%q is not an absolute URI", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && scheme == "http" || port == "443" && scheme == "https" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "/" {
		path = ""
	}
	s := scheme + "://" + host + path
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s, u, nil
}

// IsLoopback reports whether host — a name or an address, with or
// without a port, an IPv6 address with or without brackets — is
// localhost (in any case: host names are case-insensitive) or a loopback
// address.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
