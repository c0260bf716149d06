package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// value is a JSON value that keeps object member order.
type value struct {
	kind    byte // '{', '[', '"', 'n' (number), 'b' (bool), '0' (null)
	members []member
	elems   []*value
	raw     json.RawMessage // compact encoding of the value
	str     string
	num     json.Number
	boolean bool
	ptr     string
}

type member struct {
	key string
	val *value
}

func (v *value) get(key string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for _, m := range v.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parseJSON reads one JSON document, rejecting duplicate member names.
// Errors name the JSON pointer of the value being read and the line.
func parseJSON(file string, data []byte) (*value, error) {
	p := &jsonParser{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	v, err := p.parse("")
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errorf("", "unexpected data after the JSON document")
	}
	return v, nil
}

type jsonParser struct {
	file string
	data []byte
	dec  *json.Decoder
}

func (p *jsonParser) errorf(ptr, format string, args ...any) error {
	line := 1 + bytes.Count(p.data[:min(int(p.dec.InputOffset()), len(p.data))], []byte{'\n'})
	return &Error{File: p.file, Pointer: ptr, Msg: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
}

func (p *jsonParser) tokenErr(ptr string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(p.data[:min(int(se.Offset), len(p.data))], []byte{'\n'})
		return &Error{File: p.file, Pointer: ptr, Msg: fmt.Sprintf("line %d: invalid JSON: %v", line, se)}
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{File: p.file, Pointer: ptr, Msg: "invalid JSON: unexpected end of input"}
	}
	return &Error{File: p.file, Pointer: ptr, Msg: "invalid JSON: " + err.Error()}
}

func (p *jsonParser) parse(ptr string) (*value, error) {
	start := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.tokenErr(ptr, err)
	}
	v := &value{ptr: ptr}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v.kind = '{'
			seen := map[string]bool{}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.tokenErr(ptr, err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, p.errorf(ptr, "invalid JSON: object key is not a string")
				}
				cp := ptr + "/" + escapePointer(key)
				if seen[key] {
					return nil, p.errorf(cp, "duplicate member %q", key)
				}
				seen[key] = true
				mv, err := p.parse(cp)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, member{key: key, val: mv})
			}
		case '[':
			v.kind = '['
			for i := 0; p.dec.More(); i++ {
				ev, err := p.parse(ptr + "/" + strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, ev)
			}
		default:
			return nil, p.errorf(ptr, "invalid JSON: unexpected %q", t)
		}
		if _, err := p.dec.Token(); err != nil { // closing delimiter
			return nil, p.tokenErr(ptr, err)
		}
	case string:
		v.kind, v.str = '"', t
	case json.Number:
		v.kind, v.num = 'n', t
	case bool:
		v.kind, v.boolean = 'b', t
	case nil:
		v.kind = '0'
	}
	end := p.dec.InputOffset()
	raw := bytes.TrimLeft(p.data[start:end], " \t\r\n,:")
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, p.errorf(ptr, "invalid JSON: %v", err)
	}
	v.raw = buf.Bytes()
	return v, nil
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func unescapePointer(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}
