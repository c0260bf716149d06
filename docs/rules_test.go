package docs_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rules.md defines every rule ID the repository may cite. The tests below
// check that the file is well formed and that every .go and .md file in the
// module cites only IDs it defines.
//
// A citation is one of:
//
//   - a rule ID, PREFIX-N: an upper-case letter, then upper-case letters or
//     digits (LS2C), a hyphen and a decimal number: MSG-3, LS2C-1, XMH-10;
//   - the same with a tail naming more numbers of that prefix: ".." (also
//     "…" or "–") for an inclusive range, which may repeat the prefix, and
//     "/" for one more number, so XMH-1..5 cites XMH-1 to XMH-5, RT-2..RT-4
//     cites RT-2 to RT-4, LLIFE-4/5 cites LLIFE-4 and LLIFE-5 and
//     LPROG-1..3/5 cites LPROG-1, 2, 3 and 5;
//   - a whole group, written with "-*" after the prefix (ENC-*), which needs
//     at least one rule with that prefix;
//   - an entry of the 2026-07-28 digest's Appendix A: the letter A and a
//     number, written alone (A3, "Appendix A5");
//   - the leading segments of a test, fuzz, benchmark or example function
//     name, prefix and number without the hyphen: func TestMRTR17_Expired
//     cites MRTR-17, func TestID5_CAN4_Cancel cites ID-5 and CAN-4.
//
// A token is not a citation when it is part of a longer word (XMH-1a,
// FOO_XMH-1), follows a hyphen (nothing in HMAC-SHA-256 is cited), is a
// dotted version (HTTP-1.1), or has a prefix in notRulePrefixes. The same
// ID cited twice on one line counts once.

// notRulePrefixes lists the upper-case prefixes that precede "-N" in the
// repository without naming a rule. Every entry occurs in the tree today;
// when another such token appears (a hash or standard name followed by a
// number), add its prefix with where it occurs. An entry must never be a
// rule prefix (TestNotRulePrefixesAreNotRules).
var notRulePrefixes = map[string]string{
	"AES": "cipher names: AES-256-GCM seals requestState (README, runtime/server)",
	"RFC": "RFC-5424 in doc comments copied from the schema (gen/mcp)",
	"SEP": "Specification Enhancement Proposals: SEP-2596 (gen/mcp)",
	"UTF": "character encodings: UTF-8",
}

var (
	// ruleToken: group 1 prefix, group 2 "*" or the first number, group 3
	// the range/alternative tail.
	ruleToken     = regexp.MustCompile(`\b([A-Z][A-Z0-9]*)-(\*|[0-9]+)((?:(?:\.\.|…|–)(?:[A-Z][A-Z0-9]*-)?[0-9]+|/[0-9]+)*)`)
	tailPart      = regexp.MustCompile(`(\.\.|…|–|/)(?:([A-Z][A-Z0-9]*)-)?([0-9]+)`)
	appendixToken = regexp.MustCompile(`\bA([1-9][0-9]?)\b`)
	// testFunc: group 1 the name after Test, Fuzz, Benchmark or Example;
	// nameSegment: one "_"-separated part of it that is PREFIXN (LS2C1).
	testFunc    = regexp.MustCompile(`\bfunc (?:Test|Fuzz|Benchmark|Example)([A-Z][A-Za-z0-9_]*)`)
	nameSegment = regexp.MustCompile(`^([A-Z]+(?:[0-9]+[A-Z]+)*)([0-9]+)$`)

	ruleID     = regexp.MustCompile(`^([A-Z][A-Z0-9]*)-([1-9][0-9]*)$`)
	appendixID = regexp.MustCompile(`^A([1-9][0-9]*)$`)
	groupHead  = regexp.MustCompile(`^### ([A-Z][A-Z0-9]*): `)
	// A source names a page of a dated revision, an extension page or a
	// schema example folder.
	sourceRef = regexp.MustCompile(`\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b|\bextensions/`)
)

// maxRange bounds the expansion of one range citation.
const maxRange = 100

// citation is one rule ID (or whole group, ENC-*) cited at a line and
// byte column, or a malformed citation when bad is set.
type citation struct {
	line, col int
	id        string
	bad       string
}

// scan returns the citations in text in the order they appear.
func scan(text string) []citation {
	var out []citation
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		var cs []citation
		for _, m := range ruleToken.FindAllStringSubmatchIndex(line, -1) {
			if !standalone(line, m[0], m[1]) {
				continue
			}
			prefix := line[m[2]:m[3]]
			if _, ok := notRulePrefixes[prefix]; ok {
				continue
			}
			first := line[m[4]:m[5]]
			if first == "*" {
				cs = append(cs, citation{line: n, col: m[0], id: prefix + "-*"})
				continue
			}
			if m[1] < len(line)-1 && line[m[1]] == '.' && isDigit(line[m[1]+1]) {
				continue // a dotted version such as HTTP-1.1
			}
			cs = append(cs, expand(n, m[0], prefix, first, line[m[6]:m[7]])...)
		}
		for _, m := range appendixToken.FindAllStringIndex(line, -1) {
			if standalone(line, m[0], m[1]) {
				cs = append(cs, citation{line: n, col: m[0], id: line[m[0]:m[1]]})
			}
		}
		for _, m := range testFunc.FindAllStringSubmatchIndex(line, -1) {
			for _, seg := range strings.Split(line[m[2]:m[3]], "_") {
				sm := nameSegment.FindStringSubmatch(seg)
				if sm == nil {
					break
				}
				if _, ok := notRulePrefixes[sm[1]]; !ok {
					cs = append(cs, expand(n, m[2], sm[1], sm[2], "")...)
				}
			}
		}
		slices.SortStableFunc(cs, func(a, b citation) int { return a.col - b.col })
		seen := map[string]bool{}
		for _, c := range cs {
			if !seen[c.id] {
				seen[c.id] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// standalone reports whether line[start:end] is not glued to a hyphen
// before it or to a word character after it.
func standalone(line string, start, end int) bool {
	if start > 0 && line[start-1] == '-' {
		return false
	}
	if end < len(line) {
		c := line[end]
		if c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// expand turns PREFIX-first plus a tail such as "..5/7" into one citation
// per number.
func expand(line, col int, prefix, first, tail string) []citation {
	whole := prefix + "-" + first + tail
	cur, err := strconv.Atoi(first)
	if err != nil || first[0] == '0' {
		return []citation{{line: line, col: col, id: whole, bad: "bad number"}}
	}
	nums := []int{cur}
	for _, p := range tailPart.FindAllStringSubmatch(tail, -1) {
		if p[2] != "" && p[2] != prefix {
			return []citation{{line: line, col: col, id: whole, bad: "range across groups"}}
		}
		next, err := strconv.Atoi(p[3])
		if err != nil || p[3][0] == '0' {
			return []citation{{line: line, col: col, id: whole, bad: "bad number"}}
		}
		if p[1] == "/" {
			nums = append(nums, next)
		} else {
			if next <= cur || next-cur > maxRange {
				return []citation{{line: line, col: col, id: whole, bad: "bad range"}}
			}
			for k := cur + 1; k <= next; k++ {
				nums = append(nums, k)
			}
		}
		cur = next
	}
	out := make([]citation, len(nums))
	for i, k := range nums {
		out[i] = citation{line: line, col: col, id: prefix + "-" + strconv.Itoa(k)}
	}
	return out
}

// problems lists, as "file:line: ID" lines, the citations in text that
// defined does not cover.
func problems(file, text string, defined map[string]bool) []string {
	prefixes := map[string]bool{}
	for id := range defined {
		if m := ruleID.FindStringSubmatch(id); m != nil {
			prefixes[m[1]] = true
		}
	}
	var out []string
	for _, c := range scan(text) {
		switch {
		case c.bad != "":
			out = append(out, fmt.Sprintf("%s:%d: %s (%s)", file, c.line, c.id, c.bad))
		case strings.HasSuffix(c.id, "-*"):
			if !prefixes[strings.TrimSuffix(c.id, "-*")] {
				out = append(out, fmt.Sprintf("%s:%d: %s (no such group)", file, c.line, c.id))
			}
		case !defined[c.id]:
			out = append(out, fmt.Sprintf("%s:%d: %s", file, c.line, c.id))
		}
	}
	return out
}

// rulesFile is docs/rules.md, parsed.
type rulesFile struct {
	ids    map[string]bool
	order  []string
	errors []string
}

// parseRules reads the tables of rules.md. Every table row must have three
// non-empty cells; data rows start with a rule ID (under the "### PREFIX:"
// heading of its group) or an Appendix A ID; IDs are unique, numbered from
// 1 without holes per prefix, and each names its source.
func parseRules(text string) rulesFile {
	rf := rulesFile{ids: map[string]bool{}}
	fail := func(n int, format string, args ...any) {
		rf.errors = append(rf.errors, fmt.Sprintf("rules.md:%d: %s", n, fmt.Sprintf(format, args...)))
	}
	group, inAppendix := "", false
	numbers := map[string][]int{}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if strings.HasPrefix(line, "#") {
			group, inAppendix = "", false
			if m := groupHead.FindStringSubmatch(line); m != nil {
				group = m[1]
			}
			if strings.HasPrefix(line, "## Appendix A") {
				inAppendix = true
			}
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 3 {
			fail(n, "table row has %d columns, want 3", len(cells))
			continue
		}
		if slices.Contains(cells, "") {
			fail(n, "table row has an empty cell")
			continue
		}
		id := cells[0]
		if id == "ID" || strings.Trim(id, "-: ") == "" {
			continue // header or separator
		}
		var prefix string
		var num int
		if m := ruleID.FindStringSubmatch(id); m != nil {
			prefix, num = m[1], atoi(m[2])
			if prefix != group {
				fail(n, "%s is not under a %q heading", id, "### "+prefix+":")
			}
		} else if m := appendixID.FindStringSubmatch(id); m != nil {
			prefix, num = "A", atoi(m[1])
			if !inAppendix {
				fail(n, "%s is not under the Appendix A heading", id)
			}
		} else {
			fail(n, "first cell %q is not a rule ID", id)
			continue
		}
		if rf.ids[id] {
			fail(n, "duplicate ID %s", id)
			continue
		}
		if !sourceRef.MatchString(cells[2]) {
			fail(n, "%s: source %q names no revision or extension page", id, cells[2])
		}
		rf.ids[id] = true
		rf.order = append(rf.order, id)
		numbers[prefix] = append(numbers[prefix], num)
	}
	for _, prefix := range slices.Sorted(maps.Keys(numbers)) {
		nums := numbers[prefix]
		slices.Sort(nums)
		for i, k := range nums {
			if k != i+1 {
				rf.errors = append(rf.errors, fmt.Sprintf("rules.md: %s numbering has a hole before %d", prefix, k))
				break
			}
		}
	}
	return rf
}

// splitRow returns the trimmed cells of a Markdown table row; "\|" does not
// split.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func loadRules(t *testing.T) rulesFile {
	t.Helper()
	b, err := os.ReadFile("rules.md")
	if err != nil {
		t.Fatal(err)
	}
	return parseRules(string(b))
}

// moduleRoot is the parent of docs/, checked through its go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "module github.com/mcpgen/mcpgen" {
		t.Fatalf("%s is not the mcpgen module root", root)
	}
	return root
}

// skipDir reports whether the walk leaves out a directory: VCS data,
// caches, installed node modules and every other hidden directory.
func skipDir(rel, name string) bool {
	switch {
	case rel == ".":
		return false
	case name == ".git", name == ".cache", name == "node_modules":
		return true
	case rel == filepath.FromSlash("testdata/interop/node_modules"):
		return true
	}
	return strings.HasPrefix(name, ".")
}

func TestRulesFileWellFormed(t *testing.T) {
	rf := loadRules(t)
	for _, e := range rf.errors {
		t.Error(e)
	}
	if len(rf.ids) == 0 {
		t.Fatal("rules.md defines no IDs")
	}
	t.Logf("rules.md defines %d IDs", len(rf.ids))
}

func TestCitedRulesAreDefined(t *testing.T) {
	rf := loadRules(t)
	root := moduleRoot(t)
	var bad []string
	cited := map[string]bool{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); (ext != ".go" && ext != ".md") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		text, name := string(b), filepath.ToSlash(rel)
		bad = append(bad, problems(name, text, rf.ids)...)
		if name == "docs/rules.md" {
			return nil // its rows define IDs rather than cite them
		}
		for _, c := range scan(text) {
			if c.bad == "" && !strings.HasSuffix(c.id, "-*") {
				cited[c.id] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("walked no .go or .md files")
	}
	if len(bad) > 0 {
		t.Errorf("%d citations of rule IDs that docs/rules.md does not define:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	t.Logf("%d files scanned; outside docs/rules.md %d distinct IDs are cited", files, len(cited))
}

func TestNotRulePrefixesAreNotRules(t *testing.T) {
	rf := loadRules(t)
	for _, id := range rf.order {
		if m := ruleID.FindStringSubmatch(id); m != nil {
			if _, ok := notRulePrefixes[m[1]]; ok {
				t.Errorf("%s: prefix %s is both a rule group and in notRulePrefixes", id, m[1])
			}
		}
	}
}

func TestScan(t *testing.T) {
	defined := map[string]bool{"MSG-1": true, "LLIFE-4": true, "A1": true}
	for k := 1; k <= 5; k++ {
		defined["XMH-"+strconv.Itoa(k)] = true
	}
	sample := strings.Join([]string{
		"MSG-1 is defined; so are XMH-1..5 (a range).",
		"UTF-8, SEP-2596 and AES-256-GCM are not rules.",
		"LLIFE-4/5 names LLIFE-5, which is missing, and so is XMH-7.",
		"Words and versions are not citations: HTTP-1.1, HMAC-SHA-256, XMH-1a, x_XMH-9.",
		"Appendix A1 is defined, A3 is not; ENC-* names an unknown group, XMH-* a known one.",
		"A backwards range: XMH-" + "5..1.",
		"MSG-" + "01 has a leading zero.",
		"func TestID5_CAN4_Cancel(t *testing.T) and func TestUTF8_Lines, func TestFAULT_Panic",
		"RT-2..RT-4 is a range; XMH-2.." + "MSG-3 is not.",
	}, "\n")
	got := problems("sample.md", sample, defined)
	want := []string{
		"sample.md:3: LLIFE-5",
		"sample.md:3: XMH-7",
		"sample.md:5: A3",
		"sample.md:5: ENC-* (no such group)",
		"sample.md:6: XMH-" + "5..1 (bad range)",
		"sample.md:7: MSG-" + "01 (bad number)",
		"sample.md:8: ID-5",
		"sample.md:8: CAN-4",
		"sample.md:9: RT-2",
		"sample.md:9: RT-3",
		"sample.md:9: RT-4",
		"sample.md:9: XMH-2.." + "MSG-3 (range across groups)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}

	var ids []string
	for _, c := range scan("LPROG-1..3/5 and COMPAT-1…2 and ENC-2–3") {
		ids = append(ids, c.id)
	}
	if want := []string{"LPROG-1", "LPROG-2", "LPROG-3", "LPROG-5", "COMPAT-1", "COMPAT-2", "ENC-2", "ENC-3"}; !slices.Equal(ids, want) {
		t.Errorf("expansion: got %q, want %q", ids, want)
	}
}

func TestParseRules(t *testing.T) {
	text := strings.Join([]string{
		"### XMH: sample",
		"",
		"| ID | Rule | Source |",
		"| --- | --- | --- |",
		"| XMH-1 | A rule. | 2026-07-28/server/tools |",
		"| XMH-1 | The same ID again. | 2026-07-28/server/tools |",
		"| XMH-3 | Two columns only. |",
		"| XMH-3 | No page. | somewhere |",
		"| MSG-1 | Under the wrong heading. | 2026-07-28/basic/index |",
		"| A1 | Outside the appendix. | 2026-07-28/basic/index |",
	}, "\n")
	rf := parseRules(text)
	want := []string{
		"rules.md:6: duplicate ID XMH-1",
		"rules.md:7: table row has 2 columns, want 3",
		`rules.md:8: XMH-3: source "somewhere" names no revision or extension page`,
		`rules.md:9: MSG-1 is not under a "### MSG:" heading`,
		"rules.md:10: A1 is not under the Appendix A heading",
		"rules.md: XMH numbering has a hole before 3",
	}
	if !slices.Equal(rf.errors, want) {
		t.Errorf("errors:\n got %q\nwant %q", rf.errors, want)
	}
}
