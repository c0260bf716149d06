package server

import (
	"net/http"
	"slices"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Batches: a session negotiated at a version whose peers may send
// JSON-RPC batches (Revision.Batches: 2025-03-26, LBATCH-1) gets each
// element served in order and one array of the responses (LBATCH-3); a
// batch of notifications and responses only is answered with nothing
// (HTTP 202). Batches are refused everywhere else (LBATCH-4). The requests
// of a batch are answered at once: one that would ask the client for input
// gets an error, as in any answer that is not a stream.

// takesBatches reports whether the session's version allows batches.
func (sess *session) takesBatches() bool {
	return slices.Contains(legacy.rev.Batches, sess.version)
}

var errNoBatches = &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: JSON-RPC batches are accepted only in sessions of protocol version 2025-03-26"}

// serveBatch serves the elements of a batch in sess and returns the
// responses, encoded; ex makes each request's exchange.
func (s *Server) serveBatch(sess *session, elems []wire.Raw, ex func(m *jsonrpc.Message) *exchange) [][]byte {
	var out [][]byte
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	answer := func(id wire.ID, err *wire.Error) {
		e.Reset()
		jsonrpc.WriteError(e, id, err)
		out = append(out, slices.Clone(e.Bytes()))
	}
	for _, el := range elems {
		m, err := jsonrpc.Decode(el)
		if err != nil {
			answer(m.ID, err.(*wire.Error))
			continue
		}
		switch m.Kind {
		case jsonrpc.KindNotification:
			sess.notified(m)
			continue
		case jsonrpc.KindResult, jsonrpc.KindError:
			sess.deliver(m)
			continue
		}
		if isHandshake(m) {
			answer(m.ID, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: initialize must not be part of a batch (LBATCH-2)"})
			continue
		}
		rctx, done, berr := sess.begin(m.ID)
		if berr != nil {
			answer(m.ID, berr.(*wire.Error))
			continue
		}
		e.Reset()
		_, cerr := s.respond(rctx, ex(m), m, e)
		done()
		if cerr == nil { // a cancelled request gets no answer (LCAN-3)
			out = append(out, slices.Clone(e.Bytes()))
		}
	}
	return out
}

// writeBatch writes the responses of a batch as one JSON array.
func writeBatch(w interface{ Write([]byte) (int, error) }, out [][]byte) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	e.ArrStart()
	for _, r := range out {
		e.Raw(r)
	}
	e.ArrEnd()
	_, _ = w.Write(e.Bytes())
}

// serveBatchHTTP answers a POSTed batch (LBATCH-3).
func (h *httpHandler) serveBatchHTTP(w http.ResponseWriter, r *http.Request, body []byte, who identity) {
	if _, named := r.Header[canonicalSessionID]; !named {
		writeJSONError(w, wire.ID{}, errNoBatches)
		return
	}
	hs := h.session(w, r, who)
	if hs == nil {
		return
	}
	if !hs.takesBatches() {
		writeJSONError(w, wire.ID{}, errNoBatches)
		return
	}
	elems, err := jsonrpc.SplitBatch(body)
	if err != nil {
		writeJSONError(w, wire.ID{}, err.(*wire.Error))
		return
	}
	if len(elems) == 0 { // LBATCH-5: one error, not an array
		writeJSONError(w, wire.ID{}, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: the batch is empty"})
		return
	}
	hs.enter()
	defer hs.leave()
	out := h.s.serveBatch(hs.session, elems, func(m *jsonrpc.Message) *exchange {
		return &exchange{id: m.ID, method: m.Method, principal: hs.principal, sess: hs.session, out: nopSink{}, caller: who.p, authz: h.opts.Auth}
	})
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header()["Content-Type"] = contentTypeJSON
	writeBatch(w, out)
}
