package wireimpl

import "github.com/go-faster/jx"

// Codec is implemented by every generated type.
type Codec interface {
	DecodeJSON(d *Decoder) error
	EncodeJSON(e *jx.Encoder)
	Validate() error
}

// MethodKind tells JSON-RPC requests, notifications and MRTR input requests
// (which travel inside results, never as JSON-RPC messages) apart.
type MethodKind uint8

// Method kinds.
const (
	Request MethodKind = iota + 1
	Notification
	InputRequest
)

func (k MethodKind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case InputRequest:
		return "input request"
	}
	return "unknown"
}

// Direction says who sends a method.
type Direction uint8

// Directions.
const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	Both = ClientToServer | ServerToClient
)

func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client→server"
	case ServerToClient:
		return "server→client"
	case Both:
		return "both"
	}
	return "none"
}

// Method describes one method of a protocol revision, as generated from its
// schema.
type Method struct {
	Name      string
	Kind      MethodKind
	Direction Direction
	// ParamsType and ResultTypes name the generated Go types; ResultTypes
	// lists every type a result may take (for multi round-trip methods the
	// final result and InputRequiredResult). Empty for notifications.
	ParamsType  string
	ResultTypes []string
	// ParamsRequired reports whether the message must carry params.
	ParamsRequired bool
	// NewParams returns a new zero params value; NewResult a new zero result
	// value (a union when ResultTypes has several entries), nil for
	// notifications.
	NewParams func() Codec
	NewResult func() Codec
}
