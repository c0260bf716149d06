package oauth

import (
	"strings"
)

// challenge is one WWW-Authenticate challenge (RFC 9110 §11.6.1): a scheme
// and its auth-params, names lower-cased.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads every challenge of the WWW-Authenticate field
// values (AUTHC-2): several challenges per value and several values, any
// scheme, auth-params as tokens or quoted strings (with quoted-pair
// escapes and commas inside), in any order. A token68 credential is kept
// under the empty name. Malformed input yields what could be read.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		p := &parser{s: v}
		cur := -1
		for {
			p.skip(", \t")
			if p.done() {
				break
			}
			tok := p.token()
			if tok == "" { // not a token: skip the byte
				p.i++
				continue
			}
			p.skip(" \t")
			if p.peek() == '=' { // auth-param = token BWS "=" BWS value
				p.i++
				p.skip(" \t")
				val := p.value()
				if cur >= 0 {
					out[cur].params[strings.ToLower(tok)] = val
				}
				continue
			}
			out = append(out, challenge{scheme: strings.ToLower(tok), params: map[string]string{}})
			cur = len(out) - 1
			if t, ok := p.token68(); ok {
				out[cur].params[""] = t
			}
		}
	}
	return out
}

type parser struct {
	s string
	i int
}

func (p *parser) done() bool { return p.i >= len(p.s) }

func (p *parser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *parser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// isTchar reports the token characters of RFC 9110 §5.6.2.
func isTchar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *parser) token() string {
	start := p.i
	for !p.done() && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 reads the token68 that may follow a scheme: token68 characters
// and "=" padding that end the list element. Anything else (such as
// "name=value") is left for the auth-params.
func (p *parser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && (isTchar(p.s[j]) || p.s[j] == '/') {
		j++
	}
	if j == p.i {
		return "", false
	}
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	end := j
	for end < len(p.s) && (p.s[end] == ' ' || p.s[end] == '\t') {
		end++
	}
	if end < len(p.s) && p.s[end] != ',' {
		return "", false
	}
	t := p.s[p.i:j]
	p.i = end
	return t, true
}

// value reads a token or a quoted string (RFC 9110 §5.6.4).
func (p *parser) value() string {
	if p.peek() != '"' {
		start := p.i
		for !p.done() && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
			p.i++
		}
		return p.s[start:p.i]
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// challengeInfo is what the Authorizer reads from a refusal: the
// parameters of the Bearer or DPoP challenge.
type challengeInfo struct {
	scheme           string
	resourceMetadata string
	scope            []string
	err              string
	description      string
}

// readChallenge picks the parameters from the Bearer and DPoP challenges
// (preferring DPoP when preferDPoP, Bearer otherwise); the first challenge
// naming a parameter wins.
func readChallenge(values []string, preferDPoP bool) challengeInfo {
	chs := parseChallenges(values)
	first, second := "bearer", "dpop"
	if preferDPoP {
		first, second = second, first
	}
	var ordered []challenge
	for _, want := range []string{first, second} {
		for _, c := range chs {
			if c.scheme == want {
				ordered = append(ordered, c)
			}
		}
	}
	var ci challengeInfo
	scope, scopeSet := "", false
	for _, c := range ordered {
		if ci.scheme == "" {
			ci.scheme = c.scheme
		}
		if v, ok := c.params["resource_metadata"]; ok && ci.resourceMetadata == "" {
			ci.resourceMetadata = v
		}
		if v, ok := c.params["scope"]; ok && !scopeSet {
			scope, scopeSet = v, true
		}
		if v, ok := c.params["error"]; ok && ci.err == "" {
			ci.err = v
			ci.description = c.params["error_description"]
		}
	}
	ci.scope = splitScope(scope)
	return ci
}

// splitScope splits a space-delimited scope string (RFC 6749 §3.3),
// dropping duplicates.
func splitScope(s string) []string {
	return union(nil, strings.Fields(s))
}

// union returns a followed by the members of b it lacks, in order.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, l := range [][]string{a, b} {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
