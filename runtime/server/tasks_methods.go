package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The extension's methods and the tools/call of task tools, behind the
// same pipeline as every request (handle.go): serve finds an extension
// method in mcptasks.Revision when the server has tasks; dispatch checks it
// with check instead of the core's checks; dispatchRequest hands it, and a
// call of a tool registered with RunAsTask, to dispatch below.

// lookup is the extension's request method named name, nil when there is
// none (a removed method included: -32601, TASK-3).
func (m *taskManager) lookup(name string) *wireimpl.Method {
	d := mcptasks.Revision.Lookup(name)
	if d == nil || d.Kind != wireimpl.Request || d.Direction&wireimpl.ClientToServer == 0 {
		return nil
	}
	return d
}

// unknownMethod is the -32601 for a method the server does not serve; a
// method the extension reserves without defining it (tasks/result,
// tasks/list) says so in data (TASK-3).
func (s *Server) unknownMethod(name string) error {
	if s.tasks != nil {
		for _, r := range mcptasks.Revision.Removed {
			if r == name {
				return wire.NewError(wire.CodeMethodNotFound, "Method not found: "+name, func(e *jx.Encoder) {
					e.ObjStart()
					e.FieldStart("reason")
					e.Str(name + " is not part of the " + mcptasks.ExtensionID + " extension (removed with the 2025-11-25 tasks)")
					e.ObjEnd()
				})
			}
		}
	}
	return wireimpl.MethodNotFound(name)
}

// readVersion fills in the protocol version of an extension request,
// whose params the extension's schema declares without _meta (its
// members are kept in Extra): a syntax-only look at the params finds it
// for the transport's and the version's checks.
func readVersion(in *incoming, params wire.Raw) {
	pk := peekParams("", params)
	in.version, in.hasVersion = pk.version, pk.hasVersion
}

// check is the checks of an extension request before its handler (the
// core's are in Server.check): its params and their _meta (-32602, HTTP
// 400 for a fault in _meta, META-2), then the client's declaration of the
// extension (-32021, TASK-2). Answers in inputResponses are checked when
// they are delivered: only those to outstanding requests count (TASK-14).
func (m *taskManager) check(in *incoming) error {
	err := in.decodeErr
	if err == nil && !in.hasParams {
		err = &wire.ValidationError{Violations: []wire.Violation{{Message: "required member is missing"}}}
	}
	if err == nil {
		err = withoutAnswers(in.params.Validate())
	}
	if err == nil {
		var meta *mcp.RequestMetaObject
		if meta, err = extensionMeta(in.params); err == nil {
			if !declaresTasks(&meta.ClientCapabilities) {
				return missingExtension()
			}
			return nil
		}
	}
	rpc := wireimpl.InvalidParams(err)
	if metaFault(err) {
		return &statusError{rpc: rpc, status: 400}
	}
	return rpc
}

// withoutAnswers drops the violations inside inputResponses.
func withoutAnswers(err error) error {
	var ve *wire.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var keep []wire.Violation
	for _, v := range ve.Violations {
		if !strings.HasPrefix(v.Path, "inputResponses[") && !strings.HasPrefix(v.Path, "inputResponses.") {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return &wire.ValidationError{Violations: keep}
}

// extensionMeta reads the _meta of an extension request's params (every
// request carries it, META-1; the extension's schema leaves it to the
// params' open members) and checks it as the core's RequestMetaObject.
func extensionMeta(params wireimpl.Codec) (*mcp.RequestMetaObject, error) {
	var extra wire.Members
	switch p := params.(type) {
	case *mcptasks.GetTaskRequestParams:
		extra = p.Extra
	case *mcptasks.UpdateTaskRequestParams:
		extra = p.Extra
	case *mcptasks.CancelTaskRequestParams:
		extra = p.Extra
	}
	raw, ok := extra.Get("_meta")
	if !ok {
		return nil, &wire.ValidationError{Violations: []wire.Violation{{Path: "_meta", Message: "required member is missing"}}}
	}
	meta := &mcp.RequestMetaObject{}
	err := wireimpl.Decode(raw, meta)
	if err == nil {
		err = meta.Validate()
	}
	if err != nil {
		return nil, wireimpl.AtKey(err, "_meta")
	}
	return meta, nil
}

// declaresTasks reports whether caps declare the tasks extension.
func declaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps.Extensions == nil {
		return false
	}
	d := wireimpl.GetDecoder(caps.Extensions)
	defer wireimpl.PutDecoder(d)
	found := false
	_ = d.Obj(func(k []byte) error {
		if string(k) == mcptasks.ExtensionID {
			found = true
		}
		return d.Pass()
	})
	return found
}

// extensionCapability is {"io.modelcontextprotocol/tasks": {}}, how the
// extension is declared under capabilities.extensions (TASK-1).
var extensionCapability = wire.Raw(`{"` + mcptasks.ExtensionID + `":{}}`)

// missingExtension is -32021 naming the extension (TASK-2, TASK-4).
func missingExtension() error {
	d := mcp.MissingRequiredClientCapabilityErrorErrorData{RequiredCapabilities: mcp.ClientCapabilities{Extensions: extensionCapability}}
	return wire.NewError(mcp.CodeMissingRequiredClientCapability, "This request needs the client's "+mcptasks.ExtensionID+" extension", d.EncodeJSON)
}

// dispatch serves the extension's requests and the calls of task tools;
// handled is false for any other request (and for a call of a tool without
// RunAsTask, or from a client that did not declare the extension to a
// tool that does not require it: an ordinary call).
func (m *taskManager) dispatch(ctx context.Context, method string, params wireimpl.Codec) (res wireimpl.Codec, err error, handled bool) {
	if method != mcp.MethodCallTool {
		if m.lookup(method) == nil {
			return nil, nil, false
		}
		res, err = mcptasks.DispatchServer(ctx, taskHandler{m}, method, params)
		return res, err, true
	}
	p, ok := params.(*mcp.CallToolRequestParams)
	if !ok {
		return nil, nil, false
	}
	s := m.s
	s.mu.RLock()
	t, found := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !found || t.task.support == TaskForbidden {
		return nil, nil, false
	}
	ex := exchangeFrom(ctx)
	// A 2025-11-25 session knows no extension: as a client that does not
	// declare it (SEP-2663, Backward Compatibility).
	declared := ex.sess == nil && declaresTasks(&p.Meta.ClientCapabilities)
	if !declared && t.task.support != TaskRequired {
		return nil, nil, false // an ordinary call
	}
	if ex.sess == nil && len(t.params) > 0 {
		// The headers are checked while the request is open, before the
		// capabilities (A9): a mismatch is its answer (-32020), not a
		// failed task.
		if v, ok := ex.out.(paramVerifier); ok {
			if err := v.verifyParams(t.params, &arguments{raw: p.Arguments}); err != nil {
				return nil, err, true
			}
		}
	}
	if !declared {
		return nil, missingExtension(), true
	}
	res, err = m.startToolTask(ctx, t, p)
	return res, err, true
}

// taskHandler serves tasks/get, tasks/update and tasks/cancel through the
// generated mcptasks.DispatchServer.
type taskHandler struct{ m *taskManager }

// GetTask returns the task with its result, error or outstanding input
// requests inlined (TASK-7).
func (h taskHandler) GetTask(ctx context.Context, p *mcptasks.GetTaskRequestParams) (*mcptasks.GetTaskResult, error) {
	rec, _, err := h.m.find(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	t := h.m.detailed(rec, wire.Member{Key: "resultType", Value: wire.Raw(`"` + mcptasks.ResultTypeComplete + `"`)})
	if meta := h.m.s.resultMeta(); meta != nil {
		t.Extra = append(t.Extra, wire.Member{Key: "_meta", Value: encodeRaw(meta.EncodeJSON)})
	}
	raw, err := wireimpl.Marshal(&t)
	if err != nil {
		return nil, err
	}
	var r mcptasks.GetTaskResult
	if err := wireimpl.Decode(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateTask delivers input responses to a task waiting for them
// (TASK-14); the answer is an empty acknowledgement.
func (h taskHandler) UpdateTask(ctx context.Context, p *mcptasks.UpdateTaskRequestParams) (*mcptasks.UpdateTaskResult, error) {
	rec, run, err := h.m.find(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	switch {
	case run != nil:
		if err := run.deliver(p.InputResponses); err != nil {
			return nil, err
		}
	case !rec.Terminal():
		return nil, elsewhere(rec.ID)
	}
	return &mcptasks.UpdateTaskResult{Meta: h.m.s.resultMeta()}, nil
}

// CancelTask cancels a running task; a task already done is left as it
// is, and acknowledged the same way (TASK-18).
func (h taskHandler) CancelTask(ctx context.Context, p *mcptasks.CancelTaskRequestParams) (*mcptasks.CancelTaskResult, error) {
	rec, run, err := h.m.find(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	switch {
	case run != nil:
		run.cancelTask()
	case !rec.Terminal():
		return nil, elsewhere(rec.ID)
	}
	return &mcptasks.CancelTaskResult{Meta: h.m.s.resultMeta()}, nil
}

// elsewhere refuses to change a task another server runs: the request
// reached the wrong replica (TaskOptions.Store).
func elsewhere(id string) error {
	return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: task " + id + " runs on another server instance"}
}

// taskNotFound is the -32602 for an unknown task id, and for the task of
// someone else (TASK-7, TASK-17).
func taskNotFound() error {
	return &wire.Error{Code: wire.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
}

// taskPrincipal digests who creates a task, to bind it to them (TASK-17).
func taskPrincipal(p string) string {
	if p == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("mcpgen task\x00" + p))
	return hex.EncodeToString(sum[:])
}

// find returns the task id as its caller may see it, with its run when
// this server runs it. A task whose server stopped (not run here, lease
// past) is failed first.
func (m *taskManager) find(ctx context.Context, id string) (*TaskRecord, *taskRun, error) {
	rec, err := m.store.Get(ctx, id)
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, nil, taskNotFound()
	case err != nil:
		m.s.log.Error("task store failed", "task", id, "error", err)
		return nil, nil, &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: the task store failed"}
	case rec.Principal != taskPrincipal(exchangeFrom(ctx).principal):
		return nil, nil, taskNotFound()
	}
	if run := m.run(id); run != nil {
		return run.snapshot(), run, nil
	}
	if now := m.now(); !rec.Terminal() && now.After(rec.LeaseUntil) {
		rec.Status, rec.StatusMessage, rec.UpdatedAt = mcptasks.TaskStatusFailed, "The server running the task stopped", now
		rec.InputRequests = nil
		rec.Error = encodeRaw((&wire.Error{Code: wire.CodeInternalError, Message: "Internal error: the server running the task stopped before it finished"}).EncodeJSON)
		if err := m.store.Update(ctx, rec); err != nil && !errors.Is(err, ErrTaskNotFound) {
			m.s.log.Warn("cannot record an abandoned task as failed", "task", id, "error", err)
		}
		m.s.hub.publishTask(rec)
	}
	return rec, nil, nil
}

// stamp is how task times are written: RFC 3339 in UTC, milliseconds.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// detailed is the task as tasks/get and notifications/tasks show it (a
// DetailedTask: the Task members, and the status's own inlined), with
// extra members after them.
func (m *taskManager) detailed(rec *TaskRecord, extra ...wire.Member) mcptasks.Task {
	t := mcptasks.Task{
		TaskID: rec.ID, Status: rec.Status, CreatedAt: stamp(rec.CreatedAt), LastUpdatedAt: stamp(rec.UpdatedAt),
		PollIntervalMs: wire.Some(rec.PollInterval.Milliseconds()),
	}
	if rec.TTL > 0 {
		t.TTLMs.Integer = wire.Some(rec.TTL.Milliseconds())
	} else {
		t.TTLMs.Null = true
	}
	if rec.StatusMessage != "" {
		t.StatusMessage = wire.Some(rec.StatusMessage)
	}
	switch rec.Status {
	case mcptasks.TaskStatusInputRequired:
		t.Extra = append(t.Extra, wire.Member{Key: "inputRequests", Value: orEmpty(rec.InputRequests)})
	case mcptasks.TaskStatusCompleted:
		t.Extra = append(t.Extra, wire.Member{Key: "result", Value: orEmpty(rec.Result)})
	case mcptasks.TaskStatusFailed:
		t.Extra = append(t.Extra, wire.Member{Key: "error", Value: rec.Error})
	}
	t.Extra = append(t.Extra, extra...)
	return t
}

func orEmpty(r wire.Raw) wire.Raw {
	if r == nil {
		return wire.Raw("{}")
	}
	return r
}

// createResult is the task handle a tools/call answers with (TASK-5):
// the task's state, without anything inlined.
func (m *taskManager) createResult(rec *TaskRecord) *mcptasks.CreateTaskResult {
	r := &mcptasks.CreateTaskResult{
		Meta: m.s.resultMeta(), TaskID: rec.ID, Status: rec.Status,
		CreatedAt: stamp(rec.CreatedAt), LastUpdatedAt: stamp(rec.UpdatedAt),
		PollIntervalMs: wire.Some(rec.PollInterval.Milliseconds()),
	}
	if rec.TTL > 0 {
		r.TTLMs.Integer = wire.Some(rec.TTL.Milliseconds())
	} else {
		r.TTLMs.Null = true
	}
	if rec.StatusMessage != "" {
		r.StatusMessage = wire.Some(rec.StatusMessage)
	}
	return r
}

// taskNotification writes notifications/tasks for rec on a listen stream
// tagged meta (TASK-21): the task as tasks/get would show it.
func (m *taskManager) taskNotification(rec *TaskRecord, meta *mcp.NotificationMetaObject) func(e *jx.Encoder) {
	t := m.detailed(rec, wire.Member{Key: "_meta", Value: encodeRaw(meta.EncodeJSON)})
	return func(e *jx.Encoder) {
		jsonrpc.WriteNotification(e, mcptasks.NotificationTaskStatus, t.EncodeJSON)
	}
}
