package wireimpl

import "testing"

// URIs from RFC 3986: the examples of sections 1.1.2, 3 and 3.2.2, and
// values built from its ABNF, valid and not.
var uriCases = []struct {
	s  string
	ok bool
}{
	// Section 1.1.2.
	{"ftp://ftp.is.co.za/rfc/rfc1808.txt", true},
	{"http://www.ietf.org/rfc/rfc2396.txt", true},
	{"ldap://[2001:db8::7]/c=GB?objectClass?one", true},
	{"mailto:John.Doe@example.com", true},
	{"news:comp.infosystems.www.servers.unix", true},
	{"tel:+1-816-555-1212", true},
	{"telnet://192.0.2.16:80/", true},
	{"urn:oasis:names:specification:docbook:dtd:xml:4.1.2", true},
	// Section 3.
	{"foo://example.com:8042/over/there?name=ferret#nose", true},
	{"urn:example:animal:ferret:nose", true},
	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), any case.
	{"a+b-c.d:x", true},
	{"HTTP://EXAMPLE.COM", true},
	{"http:", true},   // path-empty
	{"mailto:", true}, // path-empty
	{"1http://x", false},
	{"+a:x", false},
	{"ht tp://x", false},
	{"ht_tp://x", false},
	{":nothing", false},
	{"", false},
	{"example.com/a", false}, // no scheme: a relative reference
	{"/relative/path", false},
	{"//host/path", false},
	// hier-part: path-absolute, path-rootless, authority.
	{"file:///tmp/a.txt", true},
	{"file:///C:/a", true},
	{"file:/a/b", true},
	{"a:b:c", true},
	{"a:/b:c@d", true},
	{"http://x//a//", true}, // empty segments after the authority
	// pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
	{"http://x/a!$&'()*+,;=:@-._~b", true},
	{"http://x/%41%4a%4A%7e", true},
	{"http://x/%zz", false},
	{"http://x/%2", false},
	{"http://x/%", false},
	{"http://x/a%2g", false},
	{`http://x/a"b`, false},
	{`http://x/a\b`, false},
	{"http://x/<y>", false},
	{"http://x/{y}", false},
	{"http://x/a|b", false},
	{"http://x/a^b", false},
	{"http://x/`", false},
	{"http://x/a b", false},
	{"http://x/a\tb", false},
	{"http://x/a\x7fb", false},
	{"http://x/\x00", false},
	{"http://x/é", false}, // an IRI, not a URI
	{"http://x/%C3%A9", true},
	// query and fragment = *( pchar / "/" / "?" ).
	{"http://x/?a=1?b#c/d?", true},
	{"http://x?q", true},
	{"http://x#f", true},
	{"http://x/?", true},
	{"http://x/#", true},
	{"http://x/?#", true},
	{"http://x/#a#b", false},
	{"http://x/?a#b#", false},
	{"http://x/?a[b]", false},
	{"http://x/#a[b]", false},
	{"http://x/?%g0", false},
	// authority = [ userinfo "@" ] host [ ":" port ].
	{"http://user:pass@host/", true},
	{"http://:@host/", true},
	{"http://u%20v@host/", true},
	{"http://u@v@x/", false},
	{"http://u[@x/", false},
	{"http://@/", true}, // empty userinfo, empty reg-name
	{"http:///", true},  // empty reg-name
	{"http://x:8080/", true},
	{"http://x:/", true},    // port = *DIGIT: empty
	{"http://x:080/", true}, // leading zeros
	{"http://x:8o/", false}, // not a digit
	{"http://x:80:81/", false},
	{"http://x:-1/", false},
	{"http://x%41y/", true}, // reg-name with pct-encoding
	{"http://x%4/", false},
	{"http://a!$&'()*+,;=b/", true},
	{"http://a_b-c.d~e/", true},
	{"http://a[b/", false},
	{"http://a]b/", false},
	{"http://999.1.1.1/", true}, // not an IPv4address, but a reg-name
	{"http://192.0.2.16/", true},
	// IP-literal = "[" ( IPv6address / IPvFuture ) "]" (section 3.2.2).
	{"http://[::1]:8080/", true},
	{"http://[::]/", true},
	{"http://[1:2:3:4:5:6:7:8]/", true},
	{"http://[FEDC:BA98:7654:3210:FEDC:BA98:7654:3210]/", true},
	{"http://[1080::8:800:200C:417A]/", true},
	{"http://[::13.1.68.3]/", true},
	{"http://[::FFFF:129.144.52.38]/", true},
	{"http://[1:2:3:4:5:6:1.2.3.4]/", true},
	{"http://[1::]/", true},
	{"http://[1:2:3:4:5:6:7::]/", true},
	{"http://[::2:3:4:5:6:7:8]/", true},
	{"http://[1::8]/", true},
	{"http://[v1.x]/", true},
	{"http://[V7.fe80::abcd]/", true},
	{"http://[vF.a!$&'()*+,;=:-._~]/", true},
	{"http://[::1/", false},      // unclosed
	{"http://[::1]x/", false},    // neither ":" port nor the end
	{"http://[1.2.3.4]/", false}, // IPv4 is not an IP-literal
	{"http://[]/", false},
	{"http://[:]/", false},
	{"http://[:::]/", false},
	{"http://[1:2]/", false},
	{"http://[1:2:3:4:5:6:7:8:9]/", false},
	{"http://[1:2:3:4:5:6:7:8::]/", false},
	{"http://[::1:2:3:4:5:6:7:8]/", false},
	{"http://[1::2::3]/", false},
	{"http://[12345::]/", false},
	{"http://[1:]/", false},
	{"http://[:1]/", false},
	{"http://[g::]/", false},
	{"http://[::256.1.1.1]/", false},
	{"http://[::01.2.3.4]/", false}, // dec-octet has no leading zero
	{"http://[::1.2.3]/", false},
	{"http://[::1.2.3.4.5]/", false},
	{"http://[::1.2.3.4:5]/", false}, // IPv4 only as the last two groups
	{"http://[1:2:3:4:5:6:7:1.2.3.4]/", false},
	{"http://[fe80::1%25en0]/", false}, // RFC 6874 zones are not RFC 3986
	{"http://[v.x]/", false},
	{"http://[v1.]/", false},
	{"http://[v1x]/", false},
	{"http://[vg.x]/", false},
	{"http://[v1.%41]/", false}, // no pct-encoding in IPvFuture
	{"http://[v1.a/b]/", false},
	{"http://[::1]]/", false},
}

func TestIsURI(t *testing.T) {
	for _, tc := range uriCases {
		if got := IsURI(tc.s); got != tc.ok {
			t.Errorf("IsURI(%q) = %v, want %v", tc.s, got, tc.ok)
		}
		// Every URI is a URI-reference.
		if tc.ok && !IsURIReference(tc.s) {
			t.Errorf("IsURIReference(%q) = false for a URI", tc.s)
		}
	}
}

// Relative references: the examples of RFC 3986 section 5.4 (resolved
// against http://a/b/c/d;p?q) and section 4.2.
func TestIsURIReference(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"g:h", true}, {"g", true}, {"./g", true}, {"g/", true}, {"/g", true}, {"//g", true},
		{"?y", true}, {"g?y", true}, {"#s", true}, {"g#s", true}, {"g?y#s", true}, {";x", true},
		{"g;x", true}, {"g;x?y#s", true}, {"", true}, {".", true}, {"./", true}, {"..", true},
		{"../", true}, {"../g", true}, {"../..", true}, {"../../", true}, {"../../g", true},
		{"../../../g", true}, {"/./g", true}, {"/../g", true}, {"g.", true}, {".g", true},
		{"g..", true}, {"..g", true}, {"./../g", true}, {"./g/.", true}, {"g/./h", true},
		{"g/../h", true}, {"g;x=1/./y", true}, {"g;x=1/../y", true}, {"g?y/./x", true},
		{"g?y/../x", true}, {"g#s/./x", true}, {"g#s/../x", true}, {"http:g", true},
		{"./this:that", true}, // section 4.2: a colon after the first segment
		{"a/b:c", true},
		{"//host:80/p?q#f", true},
		{"//[::1]/", true},
		{"//", true},
		{"///", true},
		{"1a:b", false}, // not a scheme, so a first segment holding ':'
		{":a", false},
		{"_:x", false},
		{"a b", false},
		{"%zz", false},
		{"//[::1/", false},
		{"//u@v@x", false},
		{"g#a#b", false},
		{"g<", false},
		{"é", false},
	} {
		if got := IsURIReference(tc.s); got != tc.ok {
			t.Errorf("IsURIReference(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

// URI Templates: the examples of RFC 6570 sections 1.2, 2 and 3.2, and
// values built from its ABNF.
func TestIsURITemplate(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"http://example.com/~{username}/", true},
		{"http://example.com/dictionary/{term:1}/{term}", true},
		{"http://example.com/search{?q,lang}", true},
		{"http://www.example.com/foo{?query,number}", true},
		{"{var}", true}, {"{hello}", true}, {"{+var}", true}, {"{+hello}", true},
		{"{+path}/here", true}, {"here?ref={+path}", true}, {"X{#var}", true},
		{"X{#hello}", true}, {"map?{x,y}", true}, {"{x,hello,y}", true},
		{"{+x,hello,y}", true}, {"{+path,x}/here", true}, {"{#x,hello,y}", true},
		{"{#path,x}/here", true}, {"X{.var}", true}, {"X{.x,y}", true},
		{"{/var}", true}, {"{/var,x}/here", true}, {"{;x,y}", true},
		{"{;x,y,empty}", true}, {"{?x,y}", true}, {"{?x,y,empty}", true},
		{"?fixed=yes{&x}", true}, {"{&x,y,empty}", true}, {"{var:3}", true},
		{"{var:30}", true}, {"{list}", true}, {"{list*}", true}, {"{keys}", true},
		{"{keys*}", true}, {"{+path:6}/here", true}, {"{+list*}", true},
		{"{#keys*}", true}, {"{/list*,path:4}", true}, {"{;hello:5}", true},
		{"{?var:3}", true}, {"{&keys*}", true}, {"O{empty}X", true},
		{"{scheme}://{host}/x", true},
		{"db://{table}/{id:3}", true},
		{"file:///{path}", true},
		{"plain", true},
		{"", true},
		{"{a.b.c}", true},
		{"{a%20b}", true},
		{"{_1}", true},
		{"{var:9999}", true},
		{"{=a}", true}, {"{,a}", true}, {"{!a}", true}, {"{@a}", true}, {"{|a}", true}, // op-reserve
		{"a!#$&()*+,-./:;=?@[]_~z", true}, // literals
		{"%41%7e", true},
		{"caf\u00e9/\U0001F600/\uE000/\U000F0000", true}, // ucschar and iprivate
		{"{", false}, {"}", false}, {"{}", false}, {"{a", false}, {"a}", false},
		{"file:///{a", false}, {"file:///a}", false}, {"{{a}}", false},
		{"{a b}", false}, {"{a-b}", false}, {"{a:0}", false}, {"{a:01}", false},
		{"{a:10000}", false}, {"{a:}", false}, {"{a:x}", false}, {"{a**}", false},
		{"{a*:3}", false}, {"{a..b}", false}, {"{.a.}", false}, {"{a.}", false},
		{"{.}", false}, {"{+}", false}, {"{a,}", false}, {"{a,,b}", false},
		{"{a%2}", false}, {"{a%zz}", false}, {"{++a}", false}, {"{é}", false},
		{"http://x/a b", false}, {"a<b", false}, {"a>b", false}, {`a"b`, false},
		{"a'b", false}, {`a\b`, false}, {"a^b", false}, {"a`b", false}, {"a|b", false},
		{"%", false}, {"%4", false}, {"%zz", false}, {"a\x00", false}, {"a\x7f", false},
		{"\u00a0ok\u0080", false}, // U+0080 is a control, not a ucschar
		{"\uFFFE", false},         // a noncharacter
		{"\U000E0001", false},     // plane 14 below U+E1000
		{"\U0001FFFE", false},     // the last two code points of a plane
		{"\U0010FFFE", false},
	} {
		if got := IsURITemplate(tc.s); got != tc.ok {
			t.Errorf("IsURITemplate(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

// Checking a valid value allocates nothing.
func TestFormatsAllocateNothing(t *testing.T) {
	for _, tc := range []struct{ format, s string }{
		{"uri", "foo://user@[2001:db8::7]:8042/over/there?name=ferret#nose"},
		{"uri", "https://example.com/icon%20one.png"},
		{"uri-reference", "../g;x?y#s"},
		{"uri-template", "https://example.com/{+rest}{?q,r}/{id:3}"},
		{"byte", "aGVsbG8gd29ybGQ+Lw=="},
	} {
		if ok, _ := CheckFormat(tc.format, tc.s); !ok {
			t.Fatalf("%s %q: invalid", tc.format, tc.s)
		}
		if n := testing.AllocsPerRun(100, func() { CheckFormat(tc.format, tc.s) }); n != 0 {
			t.Errorf("%s %q: %v allocations", tc.format, tc.s, n)
		}
	}
}

func BenchmarkCheckFormatURI(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		CheckFormat("uri", "https://example.com/icons/tool-icon.png?size=64#x")
	}
}
