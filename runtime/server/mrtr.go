package server

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// ErrInputRequired is returned by Request.Elicit, Sample and Roots when the
// client has not answered yet. Return it (or an error wrapping it) from the
// handler: the server then answers with an InputRequiredResult listing
// every input the handler asked for, and calls the handler again when the
// client retries with the answers (multi round-trip requests, §6.1).
//
// A client in a 2025-11-25 session (one that began with initialize) never
// sees it: Elicit, Sample and Roots send it a real request and return its
// answer, so the same handler runs once and serves both eras.
var ErrInputRequired = errors.New("server: input required from the client")

// inputs is the multi round-trip side of a tools/call, prompts/get or
// resources/read request.
type inputs struct {
	allowed   bool               // the method may ask for input (MRTR-1)
	about     targeter           // what the request is about: see beginInputs
	responses mcp.InputResponses // answers sent with this retry
	more      *inputState        // made when the request uses state or asks
}

// inputState is the part of a request's multi round-trip state that most
// requests never need: kept apart so that a plain call does not carry it.
type inputState struct {
	target   string              // method + about, once computed
	answered map[string]wire.Raw // answers from earlier rounds, from requestState
	state    []byte              // application state from requestState
	newState []byte
	stateSet bool
	pending  mcp.InputRequests
}

// targeter names what a request is about, for binding its requestState:
// a tool or prompt name with a digest of its arguments, or a URI.
type targeter interface {
	about() string
}

// st is the request's inputState, made on first use.
func (in *inputs) st() *inputState {
	if in.more == nil {
		in.more = &inputState{}
	}
	return in.more
}

// State returns the application state the handler saved with SetState in
// the previous round of this request (nil on the first round).
func (r *Request) State() []byte {
	if !r.in.allowed || r.in.more == nil {
		return nil
	}
	return r.in.more.state
}

// SetState saves application state for the next round. It travels to the
// client inside the sealed requestState and comes back on the retry; the
// client cannot read or alter it.
func (r *Request) SetState(b []byte) {
	if r.in.allowed {
		st := r.in.st()
		if r.ex.sess != nil {
			st.state = b // a session's handler runs once: State sees it at once
			return
		}
		st.newState, st.stateSet = b, true
	}
}

// RetryLater asks the client to retry the request without any input (the
// requestState-only InputRequiredResult, e.g. to shed load). Return its
// error from the handler.
func (r *Request) RetryLater() error {
	if !r.in.allowed {
		return errNoInputs(r.Method)
	}
	return ErrInputRequired
}

func errNoInputs(method string) error {
	return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: " + method + " cannot ask the client for input (MRTR-1)"}
}

// outcome sorts a handler's error for the methods that may ask for input
// (MRTR-1): ErrInputRequired becomes the InputRequiredResult to send;
// other errors are returned as they are.
func (s *Server) outcome(r *Request, err error) (*mcp.InputRequiredResult, error) {
	if errors.Is(err, ErrInputRequired) {
		if r.ex.sess != nil {
			// Only RetryLater gets here: a session's handler has its
			// answers at once, and its client cannot retry a request.
			return nil, &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: the server is busy; try again later"}
		}
		return s.inputRequired(r)
	}
	return nil, err
}

// answer finds the client's answer to input key, re-encoded as JSON.
func (r *Request) answer(key string) (wire.Raw, bool) {
	if resp, ok := r.in.responses[key]; ok {
		raw, err := wireimpl.Marshal(&resp)
		return raw, err == nil
	}
	if r.in.more == nil {
		return nil, false
	}
	raw, ok := r.in.more.answered[key]
	return raw, ok
}

func (r *Request) ask(key string, req mcp.InputRequest) error {
	st := r.in.st()
	if st.pending == nil {
		st.pending = mcp.InputRequests{}
	}
	st.pending[key] = req
	return ErrInputRequired
}

// Elicit asks the user, through the client, to fill in a form (form-mode
// elicitation). It returns the answer when this retry carries one under
// key, and ErrInputRequired otherwise. A client that did not declare form
// elicitation gets -32021 (MRTR-4, ELI-2).
func (r *Request) Elicit(key string, p mcp.ElicitRequestFormParams) (*mcp.ElicitResult, error) {
	if !r.in.allowed {
		return nil, errNoInputs(r.Method)
	}
	// ELI-2: elicitation without modes listed supports form mode.
	c := capabilityOf(mcp.InputElicit)
	caps := &r.Meta.ClientCapabilities
	form, url := c+"."+mcp.ElicitRequestFormParamsMode, c+"."+mcp.ElicitRequestURLParamsMode
	if !caps.Has(c) || !caps.Has(form) && caps.Has(url) {
		return nil, missingCapability(form)
	}
	return r.elicit(key, mcp.ElicitRequestParams{ElicitRequestFormParams: &p})
}

// ElicitURL sends the user to a URL (URL-mode elicitation, ELI-3); the
// answer only says whether the user agreed to open it (ELI-7).
func (r *Request) ElicitURL(key string, p mcp.ElicitRequestURLParams) (*mcp.ElicitResult, error) {
	if !r.in.allowed {
		return nil, errNoInputs(r.Method)
	}
	if url := capabilityOf(mcp.InputElicit) + "." + mcp.ElicitRequestURLParamsMode; !r.Meta.ClientCapabilities.Has(url) {
		return nil, missingCapability(url)
	}
	return r.elicit(key, mcp.ElicitRequestParams{ElicitRequestURLParams: &p})
}

func (r *Request) elicit(key string, p mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	if sess := r.ex.sess; sess != nil {
		res := &mcp.ElicitResult{}
		if err := sess.ask(r.ctx, r.ex.out, mcp.InputElicit, &p, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	if raw, ok := r.answer(key); ok {
		var res mcp.ElicitResult
		if err := decodeAnswer(raw, &res); err != nil {
			return nil, answerError(key, err)
		}
		return &res, nil
	}
	return nil, r.ask(key, mcp.InputRequest{ElicitRequest: &mcp.ElicitRequest{Params: p}})
}

// Sample asks the client's model for a completion (deprecated sampling,
// §7.7). Tools in p need the client's sampling.tools capability (SMP-3).
func (r *Request) Sample(key string, p mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	if !r.in.allowed {
		return nil, errNoInputs(r.Method)
	}
	c := capabilityOf(mcp.InputCreateMessage)
	caps := &r.Meta.ClientCapabilities
	switch tools := c + ".tools"; {
	case !caps.Has(c):
		return nil, missingCapability(c)
	case (p.Tools != nil || p.ToolChoice != nil) && !caps.Has(tools): // SMP-3
		return nil, missingCapability(tools)
	}
	if sess := r.ex.sess; sess != nil {
		res := &mcp.CreateMessageResult{}
		if err := sess.ask(r.ctx, r.ex.out, mcp.InputCreateMessage, &p, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	if raw, ok := r.answer(key); ok {
		var res mcp.CreateMessageResult
		if err := decodeAnswer(raw, &res); err != nil {
			return nil, answerError(key, err)
		}
		return &res, nil
	}
	return nil, r.ask(key, mcp.InputRequest{CreateMessageRequest: &mcp.CreateMessageRequest{Params: p}})
}

// Roots asks the client for its roots (deprecated, §7.8).
func (r *Request) Roots(key string) (*mcp.ListRootsResult, error) {
	if !r.in.allowed {
		return nil, errNoInputs(r.Method)
	}
	if c := capabilityOf(mcp.InputListRoots); !r.Meta.ClientCapabilities.Has(c) {
		return nil, missingCapability(c)
	}
	if sess := r.ex.sess; sess != nil {
		res := &mcp.ListRootsResult{}
		if err := sess.ask(r.ctx, r.ex.out, mcp.InputListRoots, nil, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	if raw, ok := r.answer(key); ok {
		var res mcp.ListRootsResult
		if err := decodeAnswer(raw, &res); err != nil {
			return nil, answerError(key, err)
		}
		return &res, nil
	}
	return nil, r.ask(key, mcp.InputRequest{ListRootsRequest: &mcp.ListRootsRequest{}})
}

// capabilityOf is the client capability an input request needs (MRTR-4),
// from the revision's table.
func capabilityOf(method string) string {
	if d, ok := mcp.LookupMethod(method); ok {
		return d.ClientCapability
	}
	return ""
}

func decodeAnswer(raw wire.Raw, v wireimpl.Codec) error {
	if err := wireimpl.Decode(raw, v); err != nil {
		return err
	}
	return v.Validate()
}

// answerError is the -32602 for a malformed input response (MRTR-7).
func answerError(key string, err error) error {
	return wireimpl.InvalidParams(wireimpl.AtKey(wireimpl.AtKey(err, key), "inputResponses"))
}

// sealedState is the plaintext of a requestState.
type sealedState struct {
	Target    string              `json:"t"`
	Principal []byte              `json:"p,omitempty"` // sha256 of the principal
	Expires   int64               `json:"e"`           // unix seconds
	Nonce     []byte              `json:"n"`
	App       []byte              `json:"s,omitempty"`
	Answered  map[string]wire.Raw `json:"a,omitempty"`
}

// sealer seals requestState with AES-256-GCM, binding it to the request's
// method and target, the principal and an expiry (MRTR-15..18).
type sealer struct {
	aead      cipher.AEAD
	ttl       time.Duration
	singleUse bool
	now       func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → expiry, for single use
}

const stateAAD = "mcpgen requestState v1"

func newSealer(key []byte, ttl time.Duration, singleUse bool) *sealer {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("server: state key: " + err.Error())
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("server: state cipher: " + err.Error())
	}
	return &sealer{aead: aead, ttl: ttl, singleUse: singleUse, now: time.Now, used: map[string]int64{}}
}

func principalDigest(p string) []byte {
	if p == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(p))
	return sum[:]
}

func (s *sealer) seal(st *sealedState) (string, error) {
	st.Expires = s.now().Add(s.ttl).Unix()
	st.Nonce = make([]byte, 16)
	if _, err := rand.Read(st.Nonce); err != nil {
		return "", err
	}
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(stateAAD))), nil
}

var errBadState = &wire.Error{Code: wire.CodeInvalidParams, Message: "Invalid params: requestState is invalid, expired or belongs to another request"}

// open verifies a requestState for target and principal.
func (s *sealer) open(state, target, principal string) (*sealedState, error) {
	box, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(box) < s.aead.NonceSize()+s.aead.Overhead() {
		return nil, errBadState
	}
	ns := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, box[:ns], box[ns:], []byte(stateAAD))
	if err != nil {
		return nil, errBadState
	}
	var st sealedState
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, errBadState
	}
	now := s.now().Unix()
	if st.Target != target || string(st.Principal) != string(principalDigest(principal)) || now > st.Expires {
		return nil, errBadState
	}
	if s.singleUse {
		s.mu.Lock()
		defer s.mu.Unlock()
		for n, exp := range s.used {
			if now > exp {
				delete(s.used, n)
			}
		}
		if _, dup := s.used[string(st.Nonce)]; dup {
			return nil, errBadState
		}
		s.used[string(st.Nonce)] = st.Expires
	}
	return &st, nil
}

// beginInputs prepares the multi round-trip side of a request: it opens
// the requestState of a retry and collects the answers. target names what
// the request is about (tool or prompt name and arguments, or URI); it is
// only computed when a state is opened or sealed.
func (s *Server) beginInputs(r *Request, about targeter, responses mcp.InputResponses, state wire.Opt[string]) error {
	r.in = inputs{responses: responses, about: about, allowed: r.in.allowed}
	in := &r.in
	if s.tasks != nil {
		if res := resumeOf(r.ctx); res != nil { // a task's next round: its state is in memory (tasks_run.go)
			in.st().state, in.st().answered = res.state, res.answered
			return nil
		}
	}
	if state.Set {
		st, err := s.sealer.open(state.Value, r.target(), r.ex.principal)
		if err != nil {
			return err
		}
		in.st().state, in.st().answered = st.App, st.Answered
	}
	return nil
}

// target binds a requestState to this request: method, then what about.
func (r *Request) target() string {
	st := r.in.st()
	if st.target == "" {
		st.target = r.Method + "\x00" + r.in.about.about()
	}
	return st.target
}

// inputRequired builds the InputRequiredResult for a handler that returned
// ErrInputRequired: the inputs it asked for and a sealed requestState that
// carries its state and every answer so far.
func (s *Server) inputRequired(r *Request) (*mcp.InputRequiredResult, error) {
	in := &r.in
	more := in.st()
	st := &sealedState{Target: r.target(), Principal: principalDigest(r.ex.principal), App: more.state}
	if more.stateSet {
		st.App = more.newState
	}
	if len(more.answered)+len(in.responses) > 0 {
		st.Answered = map[string]wire.Raw{}
		for k, v := range more.answered {
			st.Answered[k] = v
		}
		for k, v := range in.responses {
			if _, asked := more.pending[k]; asked {
				continue // asked again: the old answer no longer counts
			}
			raw, err := wireimpl.Marshal(&v)
			if err != nil {
				return nil, err
			}
			st.Answered[k] = raw
		}
	}
	if s.tasks != nil {
		recordInputs(r.ctx, st.App, st.Answered) // for a task's next round
	}
	sealed, err := s.sealer.seal(st)
	if err != nil {
		return nil, err
	}
	res := &mcp.InputRequiredResult{ResultType: mcp.ResultTypeInputRequired, RequestState: wire.Some(sealed), Meta: s.resultMeta()}
	if len(more.pending) > 0 {
		res.InputRequests = more.pending
	}
	return res, nil
}
