package jsonrpc

import (
	"errors"
	"strconv"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Kind classifies a message.
type Kind uint8

// Message kinds.
const (
	KindRequest      Kind = iota + 1 // method and id
	KindNotification                 // method, no id
	KindResult                       // result and id
	KindError                        // error (id unless unreadable)
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result response"
	case KindError:
		return "error response"
	}
	return "invalid"
}

// Message is one JSON-RPC 2.0 message. Params and Result are verbatim, to
// be decoded by the generated type of the method; they share memory with
// the bytes the message was decoded from. Decoding checks their syntax and
// depth; their member names (no duplicates) are checked when their type
// decodes them, so the envelope does not scan them twice.
type Message struct {
	Kind   Kind
	ID     wire.ID
	Method string
	Params wire.Raw
	Result wire.Raw
	Error  *wire.Error
	// Decoded reports that the result was decoded straight into the value
	// DecodeResponse was given (Result is then nil).
	Decoded bool

	into wireimpl.Codec // DecodeResponse's target for the result
}

// Decode reads one message from data, which it takes ownership of (see
// wire.DecodeOwned). A JSON array (batch) is not a message in revision
// 2026-07-28 (MSG-2).
//
// The error is a *wire.Error ready to send back: -32700 for bad JSON,
// -32600 for a well-formed value that is not a valid message. When the
// message had a readable id, it is returned in Message.ID alongside the
// error so the answer can name it (MSG-7).
func Decode(data []byte) (*Message, error) {
	m := new(Message)
	return m, DecodeInto(data, m)
}

// DecodeInto is Decode into a Message the caller provides (for callers that
// keep one inside a larger allocation).
func DecodeInto(data []byte, m *Message) error {
	*m = Message{}
	if err := wireimpl.DecodeOwned(data, m); err != nil {
		if rpc, ok := err.(*wire.Error); ok {
			return rpc
		}
		code := int64(wire.CodeInvalidRequest)
		if wireimpl.IsSyntax(err) {
			code = wire.CodeParseError
		}
		msg := "Parse error: "
		if code == wire.CodeInvalidRequest {
			msg = "Invalid request: "
		}
		return &wire.Error{Code: code, Message: msg + err.Error()}
	}
	return nil
}

// DecodeResponse is DecodeInto for a response whose result type is known:
// the result is decoded into result while the envelope is read, in the
// same pass (Decoded is then set), instead of being kept verbatim and
// decoded again. A failure inside the result is a *wire.DecodeError or
// *wire.ValidationError of the result, not a JSON-RPC error.
func DecodeResponse(data []byte, m *Message, result wireimpl.Codec) error {
	*m = Message{into: result}
	err := wireimpl.DecodeOwned(data, m)
	m.into = nil
	var re *resultError
	if errors.As(err, &re) {
		return re.err
	}
	if err != nil {
		return DecodeInto(data, m) // report as a message error
	}
	return nil
}

// resultError carries a failure inside a result being decoded straight
// into its type.
type resultError struct{ err error }

func (e *resultError) Error() string { return e.err.Error() }

// DecodeJSON reads the envelope in one pass.
func (m *Message) DecodeJSON(d *wireimpl.Decoder) error {
	switch d.Next() {
	case wire.KindObject:
	case wire.KindArray:
		if err := d.Skip(); err != nil {
			return err
		}
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: batches are not supported"}
	case wire.KindInvalid:
		return d.Skip()
	default:
		if err := d.Skip(); err != nil {
			return err
		}
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: a message must be a JSON object"}
	}
	var seen uint8
	var version string
	var idErr error
	err := d.Obj(func(key []byte) error {
		var bit uint8
		var err error
		switch string(key) {
		case "jsonrpc":
			bit = 1
			version, err = d.Str()
		case "id":
			bit = 2
			var raw wire.Raw
			if raw, err = d.Raw(); err == nil {
				if m.ID, idErr = parseID(raw); idErr != nil {
					m.ID = wire.ID{}
				}
			}
		case "method":
			bit = 4
			m.Method, err = d.Str()
		case "params":
			bit = 8
			m.Params, err = d.RawSyntax() // checked in full by the params' type
		case "result":
			bit = 16
			if m.into != nil && seen&16 == 0 {
				if err = m.into.DecodeJSON(d); err != nil {
					return &resultError{wireimpl.AtKey(err, "result")}
				}
				m.Decoded = true
				break
			}
			m.Result, err = d.RawSyntax() // checked in full by the result's type
		case "error":
			bit = 32
			m.Error = new(wire.Error)
			err = decodeError(d, m.Error)
		default:
			return d.Skip() // members JSON-RPC does not define are ignored
		}
		if seen&bit != 0 {
			if bit == 2 {
				m.ID = wire.ID{} // two ids: neither can be answered to
			}
			return wireimpl.DuplicateKey(key)
		}
		seen |= bit
		if err != nil {
			return wireimpl.AtKey(err, string(key))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen&1 == 0 || version != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if idErr != nil {
		return invalid(idErr.Error())
	}
	switch {
	case seen&4 != 0:
		if seen&(16|32) != 0 {
			return invalid("a message cannot carry both method and result or error")
		}
		if seen&8 != 0 && m.Params.Kind() != wire.KindObject {
			return invalid(`"params" must be an object`)
		}
		m.Kind = KindNotification
		if seen&2 != 0 {
			m.Kind = KindRequest
		}
	case seen&16 != 0:
		if seen&32 != 0 {
			return invalid("a response cannot carry both result and error")
		}
		if seen&2 == 0 {
			return invalid(`a result response needs "id"`)
		}
		m.Kind = KindResult
	case seen&32 != 0:
		m.Kind = KindError
	default:
		return invalid(`a message needs "method", "result" or "error"`)
	}
	return nil
}

func invalid(msg string) error {
	return &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: " + msg}
}

// WriteResult writes a result response whose result body is written by
// result.
func WriteResult(e *jx.Encoder, id wire.ID, result func(e *jx.Encoder)) {
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	e.FieldStart("id")
	id.EncodeJSON(e)
	e.FieldStart("result")
	result(e)
	e.ObjEnd()
}

// WriteError writes an error response; id is omitted when it is not valid
// (the request's id could not be read, MSG-7).
func WriteError(e *jx.Encoder, id wire.ID, err *wire.Error) {
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	if id.IsValid() {
		e.FieldStart("id")
		id.EncodeJSON(e)
	}
	e.FieldStart("error")
	err.EncodeJSON(e)
	e.ObjEnd()
}

// WriteRequest writes a request; params may be nil for none.
func WriteRequest(e *jx.Encoder, id wire.ID, method string, params func(e *jx.Encoder)) {
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	e.FieldStart("id")
	id.EncodeJSON(e)
	e.FieldStart("method")
	e.Str(method)
	if params != nil {
		e.FieldStart("params")
		params(e)
	}
	e.ObjEnd()
}

// WriteNotification writes a notification; params may be nil for none.
func WriteNotification(e *jx.Encoder, method string, params func(e *jx.Encoder)) {
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	e.FieldStart("method")
	e.Str(method)
	if params != nil {
		e.FieldStart("params")
		params(e)
	}
	e.ObjEnd()
}

// parseID reads a request id from its verbatim JSON: a string, or an
// integer in the int64 range (ID-1).
func parseID(raw wire.Raw) (wire.ID, error) {
	switch raw.Kind() {
	case wire.KindString:
		d := wireimpl.GetDecoder(raw)
		defer wireimpl.PutDecoder(d)
		s, err := d.Str()
		return wire.StringID(s), err
	case wire.KindNumber:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return wire.ID{}, &wire.DecodeError{Msg: "id must be a string or an integer in the int64 range, got " + string(raw), Kind: wire.Shape}
		}
		return wire.IntID(n), nil
	}
	return wire.ID{}, &wire.DecodeError{Msg: "id must be a string or an integer, got " + raw.Kind().String(), Kind: wire.Shape}
}

// decodeError reads an error object; members other than code, message and
// data are ignored.
func decodeError(d *wireimpl.Decoder, e *wire.Error) error {
	var seen uint8
	err := d.Obj(func(key []byte) error {
		var bit uint8
		var err error
		switch string(key) {
		case "code":
			bit = 1
			e.Code, err = d.Int64()
		case "message":
			bit = 2
			e.Message, err = d.Str()
		case "data":
			bit = 4
			e.Data, err = d.Raw()
		default:
			return d.Skip()
		}
		if seen&bit != 0 {
			return wireimpl.DuplicateKey(key)
		}
		seen |= bit
		if err != nil {
			return wireimpl.AtKey(err, string(key))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen&3 != 3 {
		return &wire.DecodeError{Msg: "error object needs code and message", Kind: wire.Shape}
	}
	return nil
}

// MaxMessageBytes is the default bound on one message a server or client
// reads (a stdio line, an HTTP body, an SSE event): larger messages are
// refused rather than buffered. server.Options and client.Options change it.
const MaxMessageBytes = 16 << 20
