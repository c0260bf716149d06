package client

import (
	"mime"
	"strings"
)

// mediaType is the media type of a Content-Type value, lower case and
// without parameters. The two types MCP servers send are recognised
// without parsing (mime.ParseMediaType allocates on every response).
func mediaType(v string) string {
	t, _, _ := strings.Cut(v, ";")
	t = strings.TrimSpace(t)
	for _, known := range []string{"application/json", "text/event-stream"} {
		if strings.EqualFold(t, known) {
			return known
		}
	}
	t, _, _ = mime.ParseMediaType(v)
	return t
}
