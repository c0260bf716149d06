package uri

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"https://MCP.Example.com/mcp":        "https://mcp.example.com/mcp",
		"HTTPS://mcp.example.com:443/":       "https://mcp.example.com",
		"http://localhost:80/a/b?x=1":        "http://localhost/a/b?x=1",
		"https://mcp.example.com:8443/mcp":   "https://mcp.example.com:8443/mcp",
		"https://[::1]:443/mcp":              "https://[::1]/mcp",
		"http://[::1]:8080":                  "http://[::1]:8080",
		"https://mcp.example.com/a%2Fb#frag": "https://mcp.example.com/a%2Fb",
	} {
		got, _, err := Canonical(in)
		if err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/mcp", "mcp.example.com/mcp", "https:opaque", "%zz"} {
		if got, _, err := Canonical(in); err == nil {
			t.Errorf("Canonical(%q) = %q, want an error", in, got)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost:8080": true, "127.0.0.1": true, "127.9.9.9:1": true,
		"::1": true, "[::1]": true, "[::1]:443": true,
		"example.com": false, "10.0.0.1": false, "localhost.example.com": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
