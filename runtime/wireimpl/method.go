package wireimpl

import "github.com/go-faster/jx"

// Codec is implemented by every generated type (it is a wire.Value that
// also decodes and encodes itself through this package).
type Codec interface {
	DecodeJSON(d *Decoder) error
	EncodeJSON(e *jx.Encoder)
	Validate() error
	MarshalJSON() ([]byte, error)
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

// Method describes one method of a protocol revision, as generated from
// its schema and the revision's facts (cmd/mcpgen/internal/plan/facts). The
// runtime reads these instead of knowing methods by name.
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

	// InputRequired: the result may ask the client for input (multi
	// round-trip requests). Paginated: the request takes a cursor and its
	// result may carry nextCursor. Cacheable: the result carries caching
	// hints (ttlMs, cacheScope).
	InputRequired, Paginated, Cacheable bool
	// NameMember is the params member Streamable HTTP mirrors into the
	// Mcp-Name header ("" when the method has none); MirroredName reads it
	// from decoded params (nil when NameMember is "").
	NameMember   string
	MirroredName func(params Codec) string
	// ServerCapability is the server capability without which the method is
	// answered "method not found" ("tools"); ClientCapability the client
	// capability a server needs before it sends this input request
	// ("elicitation"). Empty when none.
	ServerCapability, ClientCapability string
	// ListenFilter is the member of the subscription filter that asks for
	// this notification on a listen stream ("" when none).
	ListenFilter string
}

// Revision is the table of one protocol revision: what a generated
// package exports for the runtime (mcp.Revision).
type Revision struct {
	// Version is the protocol revision, "2026-07-28".
	Version string
	// Stateless: requests carry their version and capabilities in _meta and
	// there is no initialize handshake.
	Stateless bool
	// Compatible lists the older revisions whose peers these bindings also
	// serve: their messages are a subset of this revision's ("2025-06-18"
	// and "2025-03-26" for 2025-11-25).
	Compatible []string
	// Batches lists the versions, among Version and Compatible, whose
	// peers may send JSON-RPC batches (arrays of messages).
	Batches []string
	// ErrorCodes are the error codes the revision defines, by name
	// ("ResourceNotFound"): those of its error definitions and those its
	// prose states.
	ErrorCodes map[string]int64
	// Methods lists every method, sorted by name (a name sent both ways,
	// as a request and a notification, has an entry per kind).
	Methods []Method
	// Lookup returns the method named name (the request when a name is both
	// a request and a notification).
	Lookup func(name string) *Method

	// Extension is the extension identifier, the key under
	// capabilities.extensions, when these are an extension's bindings
	// ("io.modelcontextprotocol/tasks"); "" for a protocol revision. Each
	// of an extension's requests needs the client to declare it.
	Extension string
	// Augments maps a core method to the result type (a definition name)
	// the extension may answer it with instead of the method's own
	// results ("tools/call": "CreateTaskResult"); NewAugment makes one.
	Augments   map[string]string
	NewAugment func(method string) Codec
	// Removed lists method names the extension reserves without defining
	// them: answered "method not found".
	Removed []string
}
