// Package plan decides the Go shape of every schema definition: which Go
// type represents it, how each member keeps presence, how a union tells
// its members apart, and which methods the revision defines. The emitter
// turns a Package into source without looking at the schema again.
package plan

import (
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
	"github.com/mcpgen/mcpgen/schema"
)

// Package is everything generated for one schema revision.
type Package struct {
	Name     string // Go package name
	Source   string // schema file, as named on the command line
	Revision string // protocol revision, "" when unknown
	// Reuse is the package whose types the reused definitions are
	// (mcpgen -reuse); nil when none is.
	Reuse   *Reuse
	Types   []*Type
	Methods []*Method
	// ErrorCodes are the JSON-RPC error codes the schema fixes (one per
	// error definition whose code member is a constant) and those the
	// revision's facts add.
	ErrorCodes []*ErrorCode
	// Facts-derived tables (see facts.go); empty without facts.
	Stateless bool
	// Compatible lists the older revisions whose peers this revision's
	// bindings also serve (facts: compatible).
	Compatible []string
	// Batches lists the versions whose peers may send JSON-RPC batches
	// (facts: batches).
	Batches     []string
	ResultTypes []*ResultTypeConst
	// ResultTypeType is the definition the ResultTypes constants are of
	// (facts: resultType.type), nil when they are untyped.
	ResultTypeType *Type
	LogLevels      *LogLevels
	// MetaKeys are the reserved _meta keys: the members of the *MetaObject
	// definitions and the unprefixed keys the facts add.
	MetaKeys []*MetaKey
	// CacheHints are the members that carry caching hints (CacheableResult's
	// beyond Result's: ttlMs, cacheScope); empty when the revision has none.
	CacheHints []string
	// Extension is set for an extension's schema (facts: extension).
	Extension *Extension
	// ConstStrings are the constant string members of definitions
	// (TextContent.type is "text"), as constants.
	ConstStrings []*ConstString
}

// ResultTypeConst is a value of resultType.
type ResultTypeConst struct {
	Const, Value string
}

// LogLevels is the severity order of the log level enum, lowest first.
type LogLevels struct {
	Type  *Type
	Order []string
}

// MetaKey is a reserved _meta key.
type MetaKey struct {
	Const, Key string
	Def        string // the *MetaObject definition declaring it; "" for unprefixed extras
}

// ConstString is a string constant a definition fixes for a member.
type ConstString struct {
	Const, Value string
	Def, Member  string
}

// ErrorCode is an error code a revision defines.
type ErrorCode struct {
	Name  string // the definition name without "Error", or the facts' name
	Const string // Go constant: Code + Name
	Def   string // the error definition; "" for a code the facts add
	Code  int64
	Doc   string
}

// TypeKind is the Go shape of a named type.
type TypeKind int

// Type kinds.
const (
	Struct TypeKind = iota + 1 // object with declared members
	Union                      // one of several members (anyOf/oneOf, type arrays)
	Enum                       // string with a fixed set of values
	Scalar                     // named string, integer, number or boolean
	Map                        // object whose members all share one schema
	Slice                      // named array
	Alias                      // another name for Target
	// Verbatim: a named free-form JSON value (JSONObject, JSONValue), a
	// wire.Raw underneath that checks its own JSON kind.
	Verbatim
)

// Type is a named Go type.
type Type struct {
	Name    string
	Kind    TypeKind
	Doc     string
	Pointer string // JSON pointer of the schema it comes from
	Def     bool   // a $defs entry (not an inline type)
	// Reused: a definition that the reused package (mcpgen -reuse)
	// declares with the same structure; this package refers to that type
	// instead of generating its own (see reuse.go).
	Reused *Reuse
	// Digest of a definition's structure (reuse.go).
	Digest string

	// Struct.
	Fields []*Field
	// Extra: undeclared members are kept verbatim (false when the schema says
	// additionalProperties: false, in which case they are a decoding error).
	Extra bool

	// Union.
	Variants []*Variant
	Dispatch *Dispatch

	// Enum: the values and, parallel to them, the names of their Go
	// constants (unique in the package).
	Values []string
	Consts []string

	// Scalar, Map, Slice, Alias, Verbatim: the underlying or element value.
	Elem *Value
}

// Field is a member of a struct.
type Field struct {
	JSON     string // member name
	Go       string // Go field name ("" for a required const: it has no field)
	Doc      string
	Required bool
	Index    int // bit for duplicate and missing tracking
	// Const is the JSON literal the member must equal (nil when none).
	Const   []byte
	ConstGo string // Go literal of Const ("text", -32020, true)
	Value   *Value
	Repr    Repr
}

// Repr is how a field keeps presence.
type Repr int

// Field representations.
const (
	// Plain: the Go value itself. Required members; also optional members
	// whose Go zero value already means absent (nil slices, maps and raw
	// values, unions with no member set).
	Plain Repr = iota + 1
	// Optional: wire.Opt[T], for optional scalars.
	Optional
	// Pointer: *T, for optional structs and to break recursion.
	Pointer
	// NoField: a required const member; the encoder writes the constant.
	NoField
)

// ValueKind is the Go representation of a value.
type ValueKind int

// Value kinds.
const (
	String ValueKind = iota + 1
	Int
	Float
	Bool
	Raw   // wire.Raw, with RawKind constraining the JSON kind
	Named // a planned type
	List  // []Elem
	Dict  // map[string]Elem
	Null  // JSON null only (a union member)
	// ID: the JSON-RPC request id (wire.ID), the type of the schema's
	// RequestId: one id type for every revision and the JSON-RPC layer.
	ID
)

// Value is a Go representation plus the keyword checks that apply at the
// place the value appears.
type Value struct {
	Kind    ValueKind
	RawKind wire.Kind // for Raw: KindInvalid means any JSON value
	Type    *Type     // for Named
	Elem    *Value    // for List and Dict
	Checks  Checks
	// ValuesKind: for a Raw object, the JSON kind every member value must
	// have (KindInvalid: any), checked by the validator on the verbatim
	// bytes.
	ValuesKind wire.Kind
	// Members: for a Raw object that declares scalar members beside
	// allowing any others (Tool.inputSchema), the declared members, checked
	// on the verbatim bytes by the validator.
	Members []RawMember
}

// RawMember is a declared member of a verbatim object.
type RawMember struct {
	Name     string
	Required bool
	Kind     ValueKind // String, Int, Float or Bool
	Const    []byte    // JSON literal it must equal, or nil
}

// Checks are validation keywords attached to a position.
type Checks struct {
	// The numeric keywords, as float64s that hold them exactly: the
	// schema loader refuses a value a float64 would round, so the
	// float64's shortest decimal is the decimal the schema writes.
	Minimum, Maximum                   *float64
	ExclusiveMinimum, ExclusiveMaximum *float64
	MultipleOf                         *float64
	MinLength, MaxLength               *int
	MinItems, MaxItems                 *int
	Format                             string
	Pattern                            string
}

// Empty reports whether there is nothing to check.
func (c Checks) Empty() bool { return c == Checks{} }

// Variant is one member of a union.
type Variant struct {
	Go    string // field name in the union struct
	Value *Value // Named struct/map types are held by pointer
	Kind  wire.Kind
	// For object variants: the members it declares and requires, and the
	// constants it fixes (member name → JSON literal).
	Declared []string
	Required []string
	// Forbidden: members whose presence rules the variant out although its
	// schema admits them (see forbidNotificationID).
	Forbidden []string
	Consts    map[string][]string // member → allowed string values
	Schema    *schema.Schema
}

// Dispatch says how a union decoder picks its member.
type Dispatch struct {
	// ByKind lists, per JSON kind, the variants that accept it.
	ByKind map[wire.Kind][]int
	// Object: how to choose among several object variants.
	Object *ObjectDispatch
}

// ObjectDispatch chooses among object variants.
type ObjectDispatch struct {
	// Key, when set, is the member whose string value picks the variant:
	// Values maps each value to the variants it leaves (one, or a group to
	// settle by Fit), Absent lists the variants left when the member is
	// missing (the members where it is optional).
	Key    string
	Values map[string][]int
	Order  []string // Values' keys, in variant order
	Absent []int
	// ResultType marks the result-type rule (see union.go).
	ResultType bool
	// Keys lists every member name the variants declare: bit i of a
	// presence set stands for Keys[i].
	Keys []string
}

// Method is a method of the revision.
type Method struct {
	Name      string // "tools/call"
	Go        string // "CallTool"
	Const     string // "MethodCallTool": the name constant, unique in the package
	Kind      wireimpl.MethodKind
	Direction wireimpl.Direction
	Message   *Type // the request or notification type
	Params    *Type // nil when the method has no params member
	// ParamsRequired: the params member is required.
	ParamsRequired bool
	// Result is the type a response's result decodes into; ResultTypes
	// lists what it may hold.
	Result      *Type
	ResultTypes []*Type

	// Derived from the schema: the result may be an input-required result
	// (multi round-trip), the request pages (cursor/nextCursor), its result
	// carries caching hints (the members of CacheableResult).
	InputRequired, Paginated, Cacheable bool
	// From the facts: the params member mirrored into Mcp-Name (and its Go
	// field), the capabilities that gate the method, the SubscriptionFilter
	// member that asks for the notification.
	NameMember, NameField              string
	ServerCapability, ClientCapability string
	ListenFilter                       string
}
