package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Tasks (the io.modelcontextprotocol/tasks extension; docs/tasks.md). With
// Options.Tasks the client declares the extension on every request, and a
// server may then answer a tools/call with a task handle instead of the
// result (TASK-13). CallTool follows the task to its end: it polls
// tasks/get at the interval the server asks for, answers the task's input
// requests through the usual callbacks with tasks/update, and cancels the
// task with tasks/cancel when its context ends. StartTool returns the
// task (a *Task) instead, for callers that follow it themselves, and
// Client.Task resumes one by its id, e.g. after a restart.

// ErrTaskCancelled reports a task that ended cancelled.
var ErrTaskCancelled = errors.New("client: the task was cancelled")

// defaultPoll is the polling interval when the server suggests none.
const defaultPoll = time.Second

// extensionCapability declares the extension (TASK-1).
var extensionCapability = wire.Raw(`{"` + mcptasks.ExtensionID + `":{}}`)

// lookup is the description of method: a method of the revision, or, with
// Options.Tasks, of the tasks extension.
func (c *Client) lookup(method string) *wireimpl.Method {
	if d := c.rev.Lookup(method); d != nil {
		return d
	}
	if c.opts.Tasks {
		return mcptasks.Revision.Lookup(method)
	}
	return nil
}

// newResult is a new value for the result of method: with Options.Tasks, a
// method the extension augments (tools/call) decodes a task handle too.
func (c *Client) newResult(desc *wireimpl.Method) wireimpl.Codec {
	if c.opts.Tasks {
		if _, ok := mcptasks.Revision.Augments[desc.Name]; ok {
			return &augmented{own: desc.NewResult(), task: mcptasks.Revision.NewAugment(desc.Name)}
		}
	}
	return desc.NewResult()
}

// augmented is the result of a method a server may answer with a task:
// the method's own result, or, when resultType says "task", the task
// handle (TASK-5, TASK-13).
type augmented struct {
	own, task wireimpl.Codec
	isTask    bool
}

func (a *augmented) DecodeJSON(d *wireimpl.Decoder) error {
	v, found, err := d.PeekMember("resultType")
	if err != nil {
		return err
	}
	if a.isTask = found && v == mcptasks.ResultTypeTask; a.isTask {
		return a.task.DecodeJSON(d)
	}
	return a.own.DecodeJSON(d)
}

func (a *augmented) member() wireimpl.Codec {
	if a.isTask {
		return a.task
	}
	return a.own
}

func (a *augmented) EncodeJSON(e *jx.Encoder)     { a.member().EncodeJSON(e) }
func (a *augmented) Validate() error              { return a.member().Validate() }
func (a *augmented) MarshalJSON() ([]byte, error) { return a.member().MarshalJSON() }

// Member is the task handle, or the member of the method's own result.
func (a *augmented) Member() any {
	if a.isTask {
		return a.task
	}
	return memberOf(a.own)
}

// taskParams are the params of a task method with the request's _meta:
// the extension's schema leaves _meta to the params' open members, and
// every request carries it (TASK-23, META-1).
type taskParams struct {
	p     wireimpl.Codec // *mcptasks.GetTaskRequestParams, ...
	extra *wire.Members  // p's Extra
	meta  mcp.RequestMetaObject
}

func (t *taskParams) RequestMeta() *mcp.RequestMetaObject  { return &t.meta }
func (t *taskParams) DecodeJSON(d *wireimpl.Decoder) error { return t.p.DecodeJSON(d) }
func (t *taskParams) Validate() error                      { return t.p.Validate() }
func (t *taskParams) MarshalJSON() ([]byte, error)         { return wireimpl.Marshal(t) }
func (t *taskParams) params() wireimpl.Codec               { return t.p }

func (t *taskParams) EncodeJSON(e *jx.Encoder) {
	raw, err := wireimpl.Marshal(&t.meta)
	if err == nil {
		t.extra.Set("_meta", raw)
	}
	t.p.EncodeJSON(e)
}

// Task is a task the server runs for one of this client's requests. Its
// methods are safe for concurrent use.
type Task struct {
	c *Client
	// ID is the task id, which names the task in every request about it;
	// keep it to resume the task later (Client.Task).
	ID string

	mu       chanMutex       // one Wait at a time
	poll     atomic.Int64    // the polling interval, in nanoseconds
	answered map[string]bool // input keys answered already (TASK-22); under mu
}

// chanMutex is a mutex whose Lock can give up with a context.
type chanMutex chan struct{}

func (m chanMutex) lock(ctx context.Context) error {
	select {
	case m <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m chanMutex) unlock() { <-m }

// Task returns the task named id (from an earlier StartTool or a
// CreateTaskResult), to follow it from this client.
func (c *Client) Task(id string) *Task {
	t := &Task{c: c, ID: id, mu: make(chanMutex, 1), answered: map[string]bool{}}
	t.poll.Store(int64(defaultPoll))
	return t
}

func (c *Client) taskOf(r *mcptasks.CreateTaskResult) *Task {
	t := c.Task(r.TaskID)
	if r.PollIntervalMs.Set && r.PollIntervalMs.Value > 0 {
		t.poll.Store(int64(time.Duration(r.PollIntervalMs.Value) * time.Millisecond))
	}
	return t
}

// TaskState is a task as tasks/get showed it.
type TaskState struct {
	ID            string
	Status        mcptasks.TaskStatus
	StatusMessage string
	// CreatedAt and UpdatedAt are as the server wrote them (ISO 8601).
	CreatedAt, UpdatedAt string
	// TTL is the task's time to live from its creation, 0 for unlimited;
	// PollInterval the polling interval the server asks for, 0 for none.
	TTL, PollInterval time.Duration
	// InputRequests are the outstanding input requests of a task waiting
	// for input; Result the result of a completed task; Err the JSON-RPC
	// error of a failed one.
	InputRequests mcp.InputRequests
	Result        *mcp.CallToolResult
	Err           *wire.Error
}

// Done reports whether the task has ended: completed, failed or cancelled.
func (s *TaskState) Done() bool {
	switch s.Status {
	case mcptasks.TaskStatusCompleted, mcptasks.TaskStatusFailed, mcptasks.TaskStatusCancelled:
		return true
	}
	return false
}

// Get asks the server for the task's state (tasks/get).
func (t *Task) Get(ctx context.Context) (*TaskState, error) {
	p := &mcptasks.GetTaskRequestParams{TaskID: t.ID}
	r, err := t.c.request(ctx, &callOptions{}, mcptasks.MethodGetTask, &taskParams{p: p, extra: &p.Extra})
	if err != nil {
		return nil, err
	}
	st, err := stateOf(r)
	if err != nil {
		return nil, &ResultError{Method: mcptasks.MethodGetTask, Err: err}
	}
	if st.ID != t.ID {
		return nil, &ResultError{Method: mcptasks.MethodGetTask, Err: fmt.Errorf("the result is about task %q, not %q", st.ID, t.ID)}
	}
	if st.PollInterval > 0 {
		t.poll.Store(int64(st.PollInterval))
	}
	return st, nil
}

// stateOf reads a tasks/get result: the members every status has, then
// those of its own.
func stateOf(r wireimpl.Codec) (*TaskState, error) {
	raw, err := wireimpl.Marshal(r)
	if err != nil {
		return nil, err
	}
	var task mcptasks.Task
	if err := wireimpl.Decode(raw, &task); err != nil {
		return nil, err
	}
	st := &TaskState{ID: task.TaskID, Status: task.Status, StatusMessage: task.StatusMessage.Value,
		CreatedAt: task.CreatedAt, UpdatedAt: task.LastUpdatedAt}
	if task.TTLMs.Integer.Set {
		st.TTL = time.Duration(task.TTLMs.Integer.Value) * time.Millisecond
	}
	if task.PollIntervalMs.Set && task.PollIntervalMs.Value > 0 {
		st.PollInterval = time.Duration(task.PollIntervalMs.Value) * time.Millisecond
	}
	for _, m := range task.Extra {
		switch {
		case m.Key == "inputRequests" && st.Status == mcptasks.TaskStatusInputRequired:
			st.InputRequests = mcp.InputRequests{}
			err = wireimpl.Decode(m.Value, &st.InputRequests)
		case m.Key == "result" && st.Status == mcptasks.TaskStatusCompleted:
			st.Result = &mcp.CallToolResult{}
			if err = wireimpl.Decode(m.Value, st.Result); err == nil {
				err = st.Result.Validate()
			}
		case m.Key == "error" && st.Status == mcptasks.TaskStatusFailed:
			var e mcp.Error
			if err = wireimpl.Decode(m.Value, &e); err == nil {
				st.Err = &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
	}
	return st, nil
}

// Update sends input responses to the task (tasks/update). The server may
// take them later than it acknowledges them (TASK-14).
func (t *Task) Update(ctx context.Context, responses mcp.InputResponses) error {
	p := &mcptasks.UpdateTaskRequestParams{TaskID: t.ID, InputResponses: responses}
	if p.InputResponses == nil {
		p.InputResponses = mcp.InputResponses{}
	}
	_, err := t.c.request(ctx, &callOptions{}, mcptasks.MethodUpdateTask, &taskParams{p: p, extra: &p.Extra})
	return err
}

// Cancel asks the server to cancel the task (tasks/cancel). Cancellation
// is cooperative: the task may still complete (TASK-18).
func (t *Task) Cancel(ctx context.Context) error {
	p := &mcptasks.CancelTaskRequestParams{TaskID: t.ID}
	_, err := t.c.request(ctx, &callOptions{}, mcptasks.MethodCancelTask, &taskParams{p: p, extra: &p.Extra})
	return err
}

// Wait follows the task to its end and returns its result: it polls
// tasks/get at the interval the server asks for (TASK-22), answers input
// requests it has not answered yet through the Options callbacks with
// tasks/update, returns the task's JSON-RPC error (a *wire.Error) when it
// failed and ErrTaskCancelled when it was cancelled. When ctx ends first,
// Wait cancels the task (tasks/cancel) and returns ctx's error.
func (t *Task) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	if err := t.mu.lock(ctx); err != nil {
		return nil, err
	}
	defer t.mu.unlock()
	res, err := t.wait(ctx)
	if err != nil && ctx.Err() != nil {
		// The caller gave up: so does the task (TASK-22). The cancellation
		// gets a moment of its own, the caller's context being over.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if cerr := t.Cancel(cctx); cerr != nil {
			t.c.log.Warn("cannot cancel the task", "task", t.ID, "error", cerr.Error())
		}
		return nil, ctx.Err()
	}
	return res, err
}

func (t *Task) wait(ctx context.Context) (*mcp.CallToolResult, error) {
	for {
		st, err := t.Get(ctx)
		if err != nil {
			return nil, fmt.Errorf("client: task %s: %w", t.ID, err)
		}
		switch st.Status {
		case mcptasks.TaskStatusCompleted:
			if st.Result == nil {
				return nil, &ResultError{Method: mcptasks.MethodGetTask, Err: errors.New("a completed task without its result")}
			}
			return st.Result, nil
		case mcptasks.TaskStatusFailed:
			if st.Err == nil {
				return nil, &ResultError{Method: mcptasks.MethodGetTask, Err: errors.New("a failed task without its error")}
			}
			return nil, st.Err
		case mcptasks.TaskStatusCancelled:
			return nil, ErrTaskCancelled
		case mcptasks.TaskStatusInputRequired:
			fresh := mcp.InputRequests{}
			for k, v := range st.InputRequests {
				if !t.answered[k] { // a key is presented once (TASK-22)
					fresh[k] = v
				}
			}
			if len(fresh) > 0 {
				answers, err := t.c.answer(ctx, fresh)
				if err != nil {
					return nil, fmt.Errorf("client: task %s: %w", t.ID, err)
				}
				if err := t.Update(ctx, answers); err != nil {
					return nil, fmt.Errorf("client: task %s: %w", t.ID, err)
				}
				for k := range answers {
					t.answered[k] = true
				}
				continue // see what the answers did at once
			}
		}
		timer := time.NewTimer(time.Duration(t.poll.Load()))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// StartTool calls a tool as CallTool does, but when the server answers
// with a task it returns the task (and a nil result) instead of waiting
// for it; otherwise it returns the result (and a nil task). Without
// Options.Tasks there is never a task.
func (c *Client) StartTool(ctx context.Context, name string, arguments wire.Raw, opts ...CallOption) (*mcp.CallToolResult, *Task, error) {
	v, err := c.callTool(ctx, name, arguments, opts)
	if err != nil {
		return nil, nil, err
	}
	return c.toolOutcome(v)
}

// toolOutcome sorts the final answer of a tools/call.
func (c *Client) toolOutcome(v any) (*mcp.CallToolResult, *Task, error) {
	switch r := v.(type) {
	case *mcp.CallToolResult:
		return r, nil, nil
	case *mcptasks.CreateTaskResult:
		return nil, c.taskOf(r), nil
	}
	return nil, nil, &ResultError{Method: mcp.MethodCallTool, Err: fmt.Errorf("unexpected result %T", v)}
}
