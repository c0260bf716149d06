package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Tests of the tasks extension (io.modelcontextprotocol/tasks), named by
// the TASK rules of docs/rules.md. Requests are JSON text over the real
// transports; what the handlers saw is reported by the handlers
// themselves (taskProbe).

var (
	tasksExt  = obj{mcptasks.ExtensionID: obj{}}
	taskCaps  = obj{"extensions": tasksExt, "elicitation": obj{}}
	plainCaps = obj{"elicitation": obj{}}
)

// taskParams are request params declaring the extension (and elicitation).
func taskParams(fields obj) obj { return paramsCaps(taskCaps, fields) }

// taskProbe records what the task tools' handlers saw.
type taskProbe struct {
	mu        sync.Mutex
	runs      map[string]int
	cancelled map[string]int
	started   chan string // a "work" call began (buffered)
	release   chan struct{}
}

func (p *taskProbe) ran(tool string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs[tool]
}

func (p *taskProbe) wasCancelled(tool string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled[tool]
}

func (p *taskProbe) count(tool string, cancelled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs[tool]++
	if cancelled {
		p.cancelled[tool]++
	}
}

type msArgs struct {
	MS   int    `json:"ms,omitempty"`
	Text string `json:"text,omitempty"`
}

// taskServer is a server with tasks (options o) and tools exercising them.
func taskServer(t *testing.T, o *TaskOptions, opts *Options) (*Server, *taskProbe) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if o == nil {
		o = &TaskOptions{PollInterval: 10 * time.Millisecond}
	}
	opts.Tasks = o
	s := New(testInfo, opts)
	p := &taskProbe{runs: map[string]int{}, cancelled: map[string]int{}, started: make(chan string, 64), release: make(chan struct{})}
	sleeper := func(name string) func(ctx context.Context, req *ToolRequest, a msArgs) (*mcp.CallToolResult, error) {
		return func(ctx context.Context, req *ToolRequest, a msArgs) (*mcp.CallToolResult, error) {
			select {
			case p.started <- name:
			default:
			}
			select {
			case <-ctx.Done():
				p.count(name, true)
				return nil, ctx.Err()
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
			}
			p.count(name, false)
			if a.Text == "" {
				a.Text = name + " done"
			}
			return TextResult(a.Text), nil
		}
	}
	must(t, AddTypedTool(s, mcp.Tool{Name: "work"}, sleeper("work"), RunAsTask(TaskOptional, 0)))
	must(t, AddTypedTool(s, mcp.Tool{Name: "maybe"}, sleeper("maybe"), RunAsTask(TaskOptional, 300*time.Millisecond)))
	must(t, AddTypedTool(s, mcp.Tool{Name: "must"}, sleeper("must"), RunAsTask(TaskRequired, 300*time.Millisecond)))
	must(t, AddTypedTool(s, mcp.Tool{Name: "plain"}, sleeper("plain")))
	must(t, s.AddTool(mcp.Tool{Name: "ask"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		p.count("ask", false)
		r, err := req.Elicit("name", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return TextResult("Hello, " + r.Content["name"].String.Value), nil
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "ask-first"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Elicit("user", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return TextResult("Hi, " + r.Content["name"].String.Value), nil
	}, RunAsTask(TaskRequired, 300*time.Millisecond)))
	must(t, s.AddTool(mcp.Tool{Name: "two"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		a, errA := req.Elicit("a", elicitForm("name"))
		b, errB := req.Elicit("b", elicitForm("name"))
		if err := errors.Join(errA, errB); err != nil {
			return nil, errA // ErrInputRequired: both were asked
		}
		return TextResult("a=" + a.Content["name"].String.Value + " b=" + b.Content["name"].String.Value), nil
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "rounds"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		p.count("rounds", false)
		first, err := req.Elicit("first", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		if req.State() == nil {
			req.SetState([]byte("kept"))
		}
		second, err := req.Elicit("second", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return TextResult(first.Content["name"].String.Value + "," + second.Content["name"].String.Value + "," + string(req.State())), nil
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "iserr"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return ErrorResult("bad input"), nil
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "rpcerr"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return nil, &wire.Error{Code: 4242, Message: "quota exceeded"}
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "oops"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("database password rejected")
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "boom"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	}, RunAsTask(TaskOptional, 0)))
	must(t, s.AddTool(mcp.Tool{Name: "gate"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-p.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return TextResult("released"), nil
	}, RunAsTask(TaskOptional, 0)))
	return s, p
}

// createTask calls tool as a task and returns its CreateTaskResult.
func createTask(t *testing.T, call caller, id any, tool string, args obj) obj {
	t.Helper()
	fields := obj{"name": tool}
	if args != nil {
		fields["arguments"] = args
	}
	_, m := call(id, "tools/call", taskParams(fields))
	r := wantResult(t, m)
	if r["resultType"] != "task" {
		t.Fatalf("%s: want a CreateTaskResult, got %s", tool, m)
	}
	return r
}

var taskIDs = ids{}

type ids struct {
	mu sync.Mutex
	n  int
}

func (c *ids) next() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("t%d", c.n)
}

// getTask is tasks/get of task id.
func getTask(t *testing.T, call caller, id string) msg {
	t.Helper()
	_, m := call(taskIDs.next(), "tasks/get", taskParams(obj{"taskId": id}))
	return m
}

// awaitStatus polls tasks/get until the task has one of statuses.
func awaitStatus(t *testing.T, call caller, id string, statuses ...string) obj {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		r := wantResult(t, getTask(t, call, id))
		for _, s := range statuses {
			if r["status"] == s {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %v, want one of %v", id, r["status"], statuses)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkAs decodes v (a result or params object) into the generated type c
// and validates it: what the server sends is what the extension's schema
// describes.
func checkAs(t *testing.T, v obj, c wireimpl.Codec) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := wireimpl.Decode(raw, c); err != nil {
		t.Fatalf("%s does not decode as %T: %v", raw, c, err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("%s is not a valid %T: %v", raw, c, err)
	}
}

// TestTASK1_ExtensionAdvertised: the extension is declared under
// capabilities.extensions, with no tasks capability beside it; a server
// without Options.Tasks declares nothing and knows no tasks/ method.
func TestTASK1_ExtensionAdvertised(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, m := call(1, "server/discover", params(nil))
		caps := wantResult(t, m)["capabilities"].(obj)
		if got := mustJSON(caps["extensions"]); got != `{"io.modelcontextprotocol/tasks":{}}` {
			t.Fatalf("extensions = %s", got)
		}
		if _, ok := caps["tasks"]; ok {
			t.Fatalf("a tasks capability is declared: %s", m)
		}
	})
	plain := newServer(t, nil)
	forEachTransport(t, plain, func(t *testing.T, call caller) {
		_, m := call(1, "server/discover", params(nil))
		if _, ok := wantResult(t, m)["capabilities"].(obj)["extensions"]; ok {
			t.Fatalf("a server without tasks declares extensions: %s", m)
		}
		status, m := call(2, "tasks/get", taskParams(obj{"taskId": "x"}))
		wantError(t, m, wire.CodeMethodNotFound)
		wantStatus(t, status, http.StatusNotFound)
	})
}

// TestTASK2_UndeclaredClient: a request that does not declare the
// extension never gets a task, even when an earlier one did (META-5): a
// task tool runs as an ordinary call; tasks/get, tasks/update and
// tasks/cancel are -32021 (HTTP 400) naming the extension.
func TestTASK2_UndeclaredClient(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		task := createTask(t, call, 1, "work", obj{"ms": 1})
		id := task["taskId"].(string)
		awaitStatus(t, call, id, "completed")
		before := p.ran("work")
		_, m := call(2, "tools/call", paramsCaps(plainCaps, obj{"name": "work", "arguments": obj{"ms": 1, "text": "sync"}}))
		r := wantResult(t, m)
		if r["resultType"] != "complete" || m.text() != "sync" || r["taskId"] != nil {
			t.Fatalf("an undeclared request got %s", m)
		}
		if p.ran("work") != before+1 {
			t.Fatalf("the handler ran %d times for the ordinary call", p.ran("work")-before)
		}
		for i, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			fields := obj{"taskId": id}
			if method == "tasks/update" {
				fields["inputResponses"] = obj{}
			}
			status, m := call(10+i, method, paramsCaps(plainCaps, fields))
			e := wantError(t, m, int(mcp.CodeMissingRequiredClientCapability))
			wantStatus(t, status, http.StatusBadRequest)
			if got := mustJSON(e.data()["requiredCapabilities"]); got != `{"extensions":{"io.modelcontextprotocol/tasks":{}}}` {
				t.Fatalf("%s: requiredCapabilities = %s", method, got)
			}
		}
	})
}

// TestTASK3_RemovedMethods: the methods the extension removed are -32601
// (HTTP 404), and the 2025-11-25 task member of tools/call makes nothing a
// task.
func TestTASK3_RemovedMethods(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	if len(mcptasks.Revision.Removed) != 2 {
		t.Fatalf("removed methods %v, want tasks/result and tasks/list", mcptasks.Revision.Removed)
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, method := range mcptasks.Revision.Removed {
			status, m := call(i+1, method, taskParams(obj{"taskId": "x"}))
			e := wantError(t, m, wire.CodeMethodNotFound)
			wantStatus(t, status, http.StatusNotFound)
			if !strings.Contains(string(e.Data), "not part of the io.modelcontextprotocol/tasks extension") {
				t.Fatalf("%s: data %s", method, e.Data)
			}
		}
		_, m := call(9, "tools/call", taskParams(obj{"name": "plain", "arguments": obj{"ms": 1, "text": "hi"}, "task": obj{"ttl": 60000}}))
		if r := wantResult(t, m); r["resultType"] != "complete" || m.text() != "hi" {
			t.Fatalf("the legacy task member changed the call: %s", m)
		}
	})
}

// TestTASK4_RequiredWithoutExtension: a tool that only runs as a task
// refuses a request without the extension with -32021, before its
// handler runs.
func TestTASK4_RequiredWithoutExtension(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		status, m := call(1, "tools/call", paramsCaps(plainCaps, obj{"name": "must", "arguments": obj{"ms": 1}}))
		e := wantError(t, m, int(mcp.CodeMissingRequiredClientCapability))
		wantStatus(t, status, http.StatusBadRequest)
		if !strings.Contains(string(e.Data), mcptasks.ExtensionID) {
			t.Fatalf("data %s does not name the extension", e.Data)
		}
	})
	if n := p.ran("must"); n != 0 {
		t.Fatalf("the handler ran %d times", n)
	}
}

var isoTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)

// TestTASK5_CreateTaskResultShape: the task handle is flat, typed "task",
// with the Task members and nothing inlined; it is a valid
// CreateTaskResult of the extension's schema.
func TestTASK5_CreateTaskResultShape(t *testing.T) {
	s, _ := taskServer(t, &TaskOptions{TTL: 90 * time.Second, PollInterval: 250 * time.Millisecond}, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		r := createTask(t, call, 1, "work", obj{"ms": 1})
		checkAs(t, r, &mcptasks.CreateTaskResult{})
		for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"} {
			if _, ok := r[k]; ok {
				t.Fatalf("CreateTaskResult carries %q: %v", k, r)
			}
		}
		if r["status"] != "working" || r["ttlMs"] != 90000.0 || r["pollIntervalMs"] != 250.0 {
			t.Fatalf("status, ttlMs, pollIntervalMs = %v, %v, %v", r["status"], r["ttlMs"], r["pollIntervalMs"])
		}
		for _, k := range []string{"createdAt", "lastUpdatedAt"} {
			if v, _ := r[k].(string); !isoTime.MatchString(v) {
				t.Fatalf("%s = %v, not an ISO 8601 time", k, r[k])
			}
		}
		if dig(r, "_meta", mcp.MetaKeyServerInfo, "name") != testInfo.Name {
			t.Fatalf("no serverInfo in _meta: %v", r)
		}
	})
	// Unlimited: ttlMs null.
	s2, _ := taskServer(t, &TaskOptions{TTL: -1}, nil)
	forEachTransport(t, s2, func(t *testing.T, call caller) {
		r := createTask(t, call, 1, "work", obj{"ms": 1})
		if v, ok := r["ttlMs"]; !ok || v != nil {
			t.Fatalf("ttlMs = %v (present %v), want null", v, ok)
		}
		awaitStatus(t, call, r["taskId"].(string), "completed")
	})
}

// gatedStore holds Create until released, to see when the handle is sent.
type gatedStore struct {
	TaskStore
	entered chan struct{}
	open    chan struct{}
}

func (g *gatedStore) Create(ctx context.Context, t *TaskRecord) error {
	g.entered <- struct{}{}
	<-g.open
	return g.TaskStore.Create(ctx, t)
}

// TestTASK6_DurableBeforeHandle: the task handle is sent only once the
// store recorded the task, and tasks/get finds it at once; a store that
// cannot record it makes the call fail, with no task.
func TestTASK6_DurableBeforeHandle(t *testing.T) {
	g := &gatedStore{TaskStore: NewMemoryTaskStore(), entered: make(chan struct{}, 1), open: make(chan struct{})}
	s, _ := taskServer(t, &TaskOptions{Store: g}, nil)
	c := startStdio(t, s)
	c.send(request(1, "tools/call", taskParams(obj{"name": "work", "arguments": obj{"ms": 1}})))
	select {
	case <-g.entered:
	case <-timeAfter():
		t.Fatal("Create was not called")
	}
	c.send(request(2, "tools/call", taskParams(obj{"name": "plain", "arguments": obj{"ms": 1}})))
	m, before := c.response("2") // the server goes on meanwhile
	wantResult(t, m)
	for _, b := range before {
		if b.idIs("1") {
			t.Fatalf("the task handle came before the store recorded the task: %s", b)
		}
	}
	close(g.open)
	m, _ = c.response("1")
	id := wantResult(t, m)["taskId"].(string)
	got := c.roundTrip(3, "tasks/get", taskParams(obj{"taskId": id}))
	if wantResult(t, got)["taskId"] != id {
		t.Fatalf("tasks/get right after the handle: %s", got)
	}
	c.finish()

	failing := &failStore{TaskStore: NewMemoryTaskStore()}
	s2, p := taskServer(t, &TaskOptions{Store: failing}, nil)
	forEachTransport(t, s2, func(t *testing.T, call caller) {
		_, m := call(1, "tools/call", taskParams(obj{"name": "work", "arguments": obj{"ms": 1}}))
		wantError(t, m, wire.CodeInternalError)
	})
	time.Sleep(50 * time.Millisecond)
	if len(p.started) != 0 || p.ran("work") != 0 {
		t.Fatal("the handler of a task the store did not record ran")
	}
}

type failStore struct{ TaskStore }

func (failStore) Create(context.Context, *TaskRecord) error { return errors.New("disk full") }

// TestTASK7_GetShowsState: tasks/get answers resultType complete with the
// task as it stands, each status with what it inlines, every answer a
// valid GetTaskResult; unknown ids are -32602.
func TestTASK7_GetShowsState(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		working := createTask(t, call, 1, "gate", nil)["taskId"].(string)
		r := wantResult(t, getTask(t, call, working))
		checkAs(t, r, &mcptasks.GetTaskResult{})
		if r["resultType"] != "complete" || r["status"] != "working" || r["result"] != nil || r["error"] != nil {
			t.Fatalf("working task: %v", r)
		}
		if dig(r, "_meta", mcp.MetaKeyServerInfo, "name") != testInfo.Name {
			t.Fatalf("no serverInfo: %v", r)
		}

		done := createTask(t, call, 2, "work", obj{"ms": 1, "text": "all done"})["taskId"].(string)
		r = awaitStatus(t, call, done, "completed")
		checkAs(t, r, &mcptasks.GetTaskResult{})
		res := r["result"].(obj)
		if dig(res, "content") == nil || res["resultType"] != "complete" || mustJSON(res["content"]) != `[{"text":"all done","type":"text"}]` {
			t.Fatalf("completed task inlines %v", res)
		}
		if _, ok := dig(res, "_meta").(obj)["io.modelcontextprotocol/related-task"]; ok {
			t.Fatalf("the inlined result carries related-task: %v", res)
		}

		asking := createTask(t, call, 3, "ask", nil)["taskId"].(string)
		r = awaitStatus(t, call, asking, "input_required")
		checkAs(t, r, &mcptasks.GetTaskResult{})
		if dig(r, "inputRequests", "name", "method") != "elicitation/create" {
			t.Fatalf("input_required task: %v", r)
		}

		_, m := call(4, "tasks/get", taskParams(obj{"taskId": "no-such-task"}))
		wantError(t, m, wire.CodeInvalidParams)
		_, m = call(5, "tasks/cancel", taskParams(obj{"taskId": working}))
		wantResult(t, m)
		r = awaitStatus(t, call, working, "cancelled")
		checkAs(t, r, &mcptasks.GetTaskResult{})
		_, m = call(6, "tasks/cancel", taskParams(obj{"taskId": asking}))
		wantResult(t, m)
	})
	_ = p
}

// TestTASK8_MultiRoundThenTask: input asked for within the window is a
// multi round-trip exchange (InputRequiredResult, no task yet); the retry
// with the answer becomes the task, whose result uses the answer.
func TestTASK8_MultiRoundThenTask(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		p := taskParams(obj{"name": "ask-first"})
		r1, state := firstRound(t, call, 1, "tools/call", p)
		if _, ok := r1["taskId"]; ok {
			t.Fatalf("the multi round-trip round carries a taskId: %v", r1)
		}
		_, m := call(2, "tools/call", retry(p, obj{"user": accept("name", "Ada")}, state))
		r2 := wantResult(t, m)
		if r2["resultType"] != "task" {
			t.Fatalf("the retry of a required task tool: %s", m)
		}
		for _, k := range []string{"requestState", "inputRequests"} {
			if _, ok := r2[k]; ok {
				t.Fatalf("the task handle carries %s: %v", k, r2)
			}
		}
		r := awaitStatus(t, call, r2["taskId"].(string), "completed")
		if got := dig(r, "result", "content").([]any)[0].(obj)["text"]; got != "Hi, Ada" {
			t.Fatalf("result %v", got)
		}
	})
}

// TestTASK9_TASK10_Outcomes: a tool error completes the task (isError
// inlined); a JSON-RPC error fails it with that error; an error that is no
// JSON-RPC error fails it with -32603 that reveals nothing.
func TestTASK9_TASK10_Outcomes(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		r := awaitStatus(t, call, createTask(t, call, 1, "iserr", nil)["taskId"].(string), "completed", "failed")
		if r["status"] != "completed" || dig(r, "result", "isError") != true || r["error"] != nil {
			t.Fatalf("tool error: %v", r)
		}
		r = awaitStatus(t, call, createTask(t, call, 2, "rpcerr", nil)["taskId"].(string), "completed", "failed")
		if r["status"] != "failed" || dig(r, "error", "code") != 4242.0 || dig(r, "error", "message") != "quota exceeded" || r["result"] != nil {
			t.Fatalf("JSON-RPC error: %v", r)
		}
		if r["statusMessage"] != "quota exceeded" {
			t.Fatalf("statusMessage %v", r["statusMessage"])
		}
		r = awaitStatus(t, call, createTask(t, call, 3, "oops", nil)["taskId"].(string), "completed", "failed")
		if r["status"] != "failed" || dig(r, "error", "code") != float64(wire.CodeInternalError) || strings.Contains(mustJSON(r), "password") {
			t.Fatalf("internal error: %v", r)
		}
		checkAs(t, r, &mcptasks.GetTaskResult{})
	})
}

// TestTASK11_TASK14_Input: a task asks for input; answers under other keys
// are ignored and acknowledged; an invalid answer is -32602; partial
// answers keep it waiting with only the rest outstanding; the handler runs
// again with every answer so far and the state it saved, and new input
// gets new keys.
func TestTASK11_TASK14_Input(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		update := func(id any, task string, responses obj) msg {
			_, m := call(id, "tasks/update", taskParams(obj{"taskId": task, "inputResponses": responses}))
			return m
		}
		// One input, a stray key first.
		task := createTask(t, call, 1, "ask", nil)["taskId"].(string)
		awaitStatus(t, call, task, "input_required")
		ack := wantResult(t, update(2, task, obj{"unknown-key": obj{"ignored": true}}))
		if mustJSON(ack) != `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"1.2.3"}},"resultType":"complete"}` {
			t.Fatalf("ack %v", ack)
		}
		if r := awaitStatus(t, call, task, "input_required", "working", "completed"); r["status"] != "input_required" {
			t.Fatalf("a stray answer moved the task: %v", r)
		}
		e := wantError(t, update(3, task, obj{"name": obj{"action": "maybe"}}), wire.CodeInvalidParams)
		if !strings.Contains(e.Message+string(e.Data), "inputResponses") {
			t.Fatalf("the error does not point at the answer: %+v", e)
		}
		wantResult(t, update(4, task, obj{"name": accept("name", "Grace")}))
		r := awaitStatus(t, call, task, "completed")
		if got := dig(r, "result", "content").([]any)[0].(obj)["text"]; got != "Hello, Grace" {
			t.Fatalf("result %v", got)
		}
		// An answer after the task is done is acknowledged and ignored.
		wantResult(t, update(5, task, obj{"name": accept("name", "late")}))

		// Two inputs at once, answered one at a time.
		task = createTask(t, call, 6, "two", nil)["taskId"].(string)
		r = awaitStatus(t, call, task, "input_required")
		if reqs := r["inputRequests"].(obj); len(reqs) != 2 {
			t.Fatalf("inputRequests %v", reqs)
		}
		wantResult(t, update(7, task, obj{"a": accept("name", "x")}))
		r = wantResult(t, getTask(t, call, task))
		if r["status"] != "input_required" || dig(r, "inputRequests", "a") != nil || dig(r, "inputRequests", "b") == nil {
			t.Fatalf("after a partial answer: %v", r)
		}
		wantResult(t, update(8, task, obj{"b": accept("name", "y")}))
		r = awaitStatus(t, call, task, "completed")
		if got := dig(r, "result", "content").([]any)[0].(obj)["text"]; got != "a=x b=y" {
			t.Fatalf("result %v", got)
		}

		// Two rounds of input with state kept between them.
		before := p.ran("rounds")
		task = createTask(t, call, 9, "rounds", nil)["taskId"].(string)
		r = awaitStatus(t, call, task, "input_required")
		if dig(r, "inputRequests", "first") == nil {
			t.Fatalf("round 1: %v", r)
		}
		wantResult(t, update(10, task, obj{"first": accept("name", "one")}))
		r = awaitStatus(t, call, task, "input_required", "completed")
		if dig(r, "inputRequests", "second") == nil || dig(r, "inputRequests", "first") != nil {
			t.Fatalf("round 2: %v", r)
		}
		wantResult(t, update(11, task, obj{"second": accept("name", "two")}))
		r = awaitStatus(t, call, task, "completed")
		if got := dig(r, "result", "content").([]any)[0].(obj)["text"]; got != "one,two,kept" {
			t.Fatalf("result %v", got)
		}
		if n := p.ran("rounds") - before; n != 3 {
			t.Fatalf("the handler ran %d times, want 3 rounds", n)
		}
	})
}

// TestTASK12_NoNotificationsAfterHandle: progress before the call becomes
// a task reaches the request's stream; after the handle, nothing does.
func TestTASK12_NoNotificationsAfterHandle(t *testing.T) {
	s := New(testInfo, &Options{Tasks: &TaskOptions{PollInterval: 10 * time.Millisecond}})
	later, sent := make(chan struct{}), make(chan bool, 1)
	must(t, s.AddTool(mcp.Tool{Name: "report"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 2, "early")
		<-later
		sent <- req.Progress(2, 2, "late")
		return TextResult("reported"), nil
	}, RunAsTask(TaskOptional, 100*time.Millisecond)))
	c := startStdio(t, s)
	p := taskParams(obj{"name": "report"})
	p["_meta"].(obj)["progressToken"] = "tok"
	c.send(request(1, "tools/call", p))
	m, before := c.response("1")
	if wantResult(t, m)["resultType"] != "task" {
		t.Fatalf("want a task: %s", m)
	}
	if len(before) != 1 || before[0].Method != "notifications/progress" {
		t.Fatalf("before the handle: %v", before)
	}
	close(later)
	if <-sent {
		t.Fatal("progress was sent after the task handle")
	}
	id := wantResult(t, m)["taskId"].(string)
	for {
		r := wantResult(t, c.roundTrip(2, "tasks/get", taskParams(obj{"taskId": id})))
		if r["status"] == "completed" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if quiet := c.expectQuiet("sentinel"); len(quiet) != 0 {
		t.Fatalf("notifications after the handle: %v", quiet)
	}
	c.finish()
}

// TestTASK13_SameHandler: one handler serves a client without the
// extension synchronously and one with it as a task, with the same result.
func TestTASK13_SameHandler(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		args := obj{"ms": 400, "text": "same"}
		_, m := call(1, "tools/call", paramsCaps(plainCaps, obj{"name": "maybe", "arguments": args}))
		sync := wantResult(t, m)
		task := createTask(t, call, 2, "maybe", args)
		r := awaitStatus(t, call, task["taskId"].(string), "completed")
		if mustJSON(sync["content"]) != mustJSON(dig(r, "result", "content")) {
			t.Fatalf("sync %v, task %v", sync["content"], dig(r, "result", "content"))
		}
		// Within the window a task tool answers as an ordinary call.
		_, m = call(3, "tools/call", taskParams(obj{"name": "maybe", "arguments": obj{"ms": 1, "text": "quick"}}))
		if r := wantResult(t, m); r["resultType"] != "complete" || m.text() != "quick" {
			t.Fatalf("a quick call: %s", m)
		}
		// A required task tool that answers within the window is a task
		// that is already done.
		task = createTask(t, call, 4, "must", obj{"ms": 1, "text": "required"})
		if task["status"] != "completed" {
			t.Fatalf("a quick required task: %v", task)
		}
		r = wantResult(t, getTask(t, call, task["taskId"].(string)))
		if dig(r, "result", "content").([]any)[0].(obj)["text"] != "required" {
			t.Fatalf("a quick required task: %v", r)
		}
	})
	if p.ran("maybe") < 6 {
		t.Fatalf("maybe ran %d times", p.ran("maybe"))
	}
}

// TestTASK15_McpName: over HTTP the task methods mirror taskId into
// Mcp-Name; a missing or different header is -32020 (HTTP 400).
func TestTASK15_McpName(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	h := startHTTP(t, s, nil)
	_, m := h.call(1, "tools/call", taskParams(obj{"name": "gate"}), nil)
	id := wantResult(t, m)["taskId"].(string)
	for _, hdr := range []map[string]string{{"Mcp-Name": ""}, {"Mcp-Name": "another-task"}} {
		resp, m := h.call(2, "tasks/get", taskParams(obj{"taskId": id}), hdr)
		wantError(t, m, int(mcp.CodeHeaderMismatch))
		wantStatus(t, resp.StatusCode, http.StatusBadRequest)
	}
	_, m = h.call(3, "tasks/get", taskParams(obj{"taskId": id}), map[string]string{"Mcp-Name": id})
	wantResult(t, m)
	_, m = h.call(4, "tasks/cancel", taskParams(obj{"taskId": id}), nil)
	wantResult(t, m)
}

// TestTASK16_UnguessableIDs: task ids are random version 4 UUIDs (122
// random bits), all different.
func TestTASK16_UnguessableIDs(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 10000 {
		id := newTaskID()
		if !uuid.MatchString(id) || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

// TestTASK17_BoundToPrincipal: a task exists only for the principal that
// created it: anyone else gets the answer an unknown id gets, for every
// method and on listen streams.
func TestTASK17_BoundToPrincipal(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	h := startHTTP(t, s, &HTTPOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
	alice, bob := map[string]string{"X-User": "alice"}, map[string]string{"X-User": "bob"}
	_, m := h.call(1, "tools/call", taskParams(obj{"name": "gate"}), alice)
	id := wantResult(t, m)["taskId"].(string)
	_, unknown := h.call(2, "tasks/get", taskParams(obj{"taskId": "00000000-0000-4000-8000-000000000000"}), bob)
	for i, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		fields := obj{"taskId": id}
		if method == "tasks/update" {
			fields["inputResponses"] = obj{}
		}
		_, m := h.call(10+i, method, taskParams(fields), bob)
		if e := wantError(t, m, wire.CodeInvalidParams); e.Message != unknown.Error.Message {
			t.Fatalf("%s by another principal: %s, an unknown task: %s", method, m, unknown)
		}
	}
	st := h.open(request(20, "subscriptions/listen", paramsCaps(taskCaps, obj{"notifications": obj{"taskIds": []string{id}}})), bob)
	ack := st.next()
	if got := mustJSON(dig(ack.Params, "notifications", "taskIds")); got != `[]` {
		t.Fatalf("bob's listen follows %s", got)
	}
	st.close()
	if p.wasCancelled("gate") != 0 {
		t.Fatal("bob's cancel cancelled alice's task")
	}
	_, m = h.call(30, "tasks/get", taskParams(obj{"taskId": id}), alice)
	if wantResult(t, m)["status"] != "working" {
		t.Fatalf("alice's task: %s", m)
	}
	_, m = h.call(31, "tasks/cancel", taskParams(obj{"taskId": id}), alice)
	wantResult(t, m)
}

// TestTASK18_Cancel: tasks/cancel acknowledges with an empty result,
// cancels the handler's context, and the task ends cancelled whatever the
// handler returns; a task already done, or waiting for input, is
// acknowledged the same way.
func TestTASK18_Cancel(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		before := p.wasCancelled("work")
		id := createTask(t, call, 1, "work", obj{"ms": 60000})["taskId"].(string)
		_, m := call(2, "tasks/cancel", taskParams(obj{"taskId": id}))
		ack := wantResult(t, m)
		checkAs(t, ack, &mcptasks.CancelTaskResult{})
		for _, k := range []string{"taskId", "status", "result", "error", "inputRequests"} {
			if _, ok := ack[k]; ok {
				t.Fatalf("the ack carries %s: %v", k, ack)
			}
		}
		eventually(t, "the handler's context is cancelled", func() bool { return p.wasCancelled("work") == before+1 })
		r := awaitStatus(t, call, id, "cancelled", "completed", "failed")
		if r["status"] != "cancelled" {
			t.Fatalf("after cancel: %v", r)
		}
		_, m = call(3, "tasks/cancel", taskParams(obj{"taskId": id}))
		wantResult(t, m)
		if r := wantResult(t, getTask(t, call, id)); r["status"] != "cancelled" {
			t.Fatalf("a second cancel: %v", r)
		}
		done := createTask(t, call, 4, "work", obj{"ms": 1})["taskId"].(string)
		awaitStatus(t, call, done, "completed")
		_, m = call(5, "tasks/cancel", taskParams(obj{"taskId": done}))
		wantResult(t, m)
		if r := wantResult(t, getTask(t, call, done)); r["status"] != "completed" {
			t.Fatalf("cancelling a completed task changed it: %v", r)
		}
		asking := createTask(t, call, 6, "ask", nil)["taskId"].(string)
		awaitStatus(t, call, asking, "input_required")
		_, m = call(7, "tasks/cancel", taskParams(obj{"taskId": asking}))
		wantResult(t, m)
		if r := wantResult(t, getTask(t, call, asking)); r["status"] != "cancelled" || r["inputRequests"] != nil {
			t.Fatalf("a cancelled task waiting for input: %v", r)
		}
		_, m = call(8, "tasks/cancel", taskParams(obj{"taskId": "no-such-task"}))
		wantError(t, m, wire.CodeInvalidParams)
	})
}

// TestTASK19_Expiry: a task is found until its ttlMs is over, then it is
// removed (-32602) from the store; a task still running then is stopped.
func TestTASK19_Expiry(t *testing.T) {
	store := NewMemoryTaskStore()
	ttl := 300 * time.Millisecond
	s, p := taskServer(t, &TaskOptions{Store: store, TTL: ttl, PollInterval: 10 * time.Millisecond}, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		start := time.Now()
		done := createTask(t, call, 1, "work", obj{"ms": 1})["taskId"].(string)
		running := createTask(t, call, 2, "work", obj{"ms": 60000})["taskId"].(string)
		before := p.wasCancelled("work")
		awaitStatus(t, call, done, "completed")
		if time.Since(start) < ttl*2/3 {
			wantResult(t, getTask(t, call, done)) // well within its ttl
		}
		time.Sleep(time.Until(start.Add(ttl + 50*time.Millisecond)))
		for _, id := range []string{done, running} {
			e := wantError(t, getTask(t, call, id), wire.CodeInvalidParams)
			if e.Message != "Failed to retrieve task: Task not found" {
				t.Fatalf("expired task: %+v", e)
			}
		}
		eventually(t, "the expired task's handler is stopped", func() bool { return p.wasCancelled("work") == before+1 })
		time.Sleep(time.Second) // the memory store sweeps at most once a second
		createTask(t, call, 3, "work", obj{"ms": 1})
		if n := store.Len(); n > 1 {
			t.Fatalf("the store still holds %d tasks", n)
		}
		time.Sleep(ttl + 50*time.Millisecond)
	})
}

// TestTASK20_PanicFailsTask: a handler that panics fails its task with
// -32603 and the server goes on serving, tasks and ordinary calls alike.
func TestTASK20_PanicFailsTask(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		r := awaitStatus(t, call, createTask(t, call, 1, "boom", nil)["taskId"].(string), "completed", "failed")
		if r["status"] != "failed" || dig(r, "error", "code") != float64(wire.CodeInternalError) || r["statusMessage"] == nil {
			t.Fatalf("panicked task: %v", r)
		}
		checkAs(t, r, &mcptasks.GetTaskResult{})
		r = awaitStatus(t, call, createTask(t, call, 2, "work", obj{"ms": 1, "text": "still here"})["taskId"].(string), "completed")
		if dig(r, "result", "content").([]any)[0].(obj)["text"] != "still here" {
			t.Fatalf("after the panic: %v", r)
		}
		_, m := call(3, "tools/call", paramsCaps(plainCaps, obj{"name": "plain", "arguments": obj{"ms": 1, "text": "sync"}}))
		if m.text() != "sync" {
			t.Fatalf("after the panic: %s", m)
		}
	})
}

// TestTASK21_Notifications: a listen stream naming tasks gets their
// status changes as notifications/tasks, tagged with its subscription id
// and carrying the task as tasks/get shows it; the acknowledgement lists
// the known tasks only; naming tasks without the extension is -32021.
func TestTASK21_Notifications(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	h := startHTTP(t, s, nil)
	_, m := h.call(1, "tools/call", taskParams(obj{"name": "ask"}), nil)
	id := wantResult(t, m)["taskId"].(string)
	eventually(t, "the task asks for input", func() bool { return p.ran("ask") == 1 })

	resp, m := h.call(2, "subscriptions/listen", paramsCaps(plainCaps, obj{"notifications": obj{"taskIds": []string{id}}}), nil)
	wantError(t, m, int(mcp.CodeMissingRequiredClientCapability))
	wantStatus(t, resp.StatusCode, http.StatusBadRequest)

	st := h.open(request(3, "subscriptions/listen", paramsCaps(taskCaps, obj{"notifications": obj{"taskIds": []string{id, "no-such-task"}, "toolsListChanged": true}})), nil)
	defer st.close()
	ack := st.next()
	if ack.Method != "notifications/subscriptions/acknowledged" || mustJSON(dig(ack.Params, "notifications", "taskIds")) != mustJSON([]string{id}) {
		t.Fatalf("ack %s", ack)
	}
	if dig(ack.Params, "notifications", "toolsListChanged") != true {
		t.Fatalf("the core filter is lost: %s", ack)
	}
	_, m = h.call(4, "tasks/update", taskParams(obj{"taskId": id, "inputResponses": obj{"name": accept("name", "Lin")}}), nil)
	wantResult(t, m)
	var statuses []string
	for {
		n := st.next()
		if n.Method != mcptasks.NotificationTaskStatus {
			t.Fatalf("unexpected %s", n)
		}
		if n.subID() != 3.0 {
			t.Fatalf("subscriptionId %v", n.subID())
		}
		checkAs(t, n.Params, &mcptasks.TaskStatusNotificationParams{})
		statuses = append(statuses, n.Params["status"].(string))
		if n.Params["status"] == "completed" {
			if got := dig(n.Params, "result", "content").([]any)[0].(obj)["text"]; got != "Hello, Lin" {
				t.Fatalf("completed notification %v", n.Params)
			}
			break
		}
	}
	if strings.Join(statuses, ",") != "working,completed" {
		t.Fatalf("statuses %v", statuses)
	}
}

// TestTASK23_MetaChecked: the task methods need the per-request _meta, and
// its version is checked as for any request.
func TestTASK23_MetaChecked(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		status, m := call(1, "tasks/get", obj{"taskId": "x"})
		e := wantError(t, m, wire.CodeInvalidParams)
		wantStatus(t, status, http.StatusBadRequest)
		if !strings.Contains(string(e.Data), "_meta") {
			t.Fatalf("the error does not name _meta: %s", m)
		}
		bad := taskParams(obj{"taskId": "x"})
		delete(bad["_meta"].(obj), "io.modelcontextprotocol/clientCapabilities")
		_, m = call(2, "tasks/get", bad)
		wantError(t, m, wire.CodeInvalidParams)
		old := taskParams(obj{"taskId": "x"})
		old["_meta"].(obj)["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
		if status == 0 { // over HTTP the header mismatches first
			_, m = call(3, "tasks/get", old)
			wantError(t, m, int(mcp.CodeUnsupportedProtocolVersion))
		}
	})
}

// TestTasksLegacySession: a 2025-11-25 session knows nothing of the
// extension: a task tool is an ordinary call (a required one is refused),
// and tasks/get is no method.
func TestTasksLegacySession(t *testing.T) {
	s, p := taskServer(t, nil, nil)
	c := startStdio(t, s)
	init := c.roundTrip(0, "initialize", obj{"protocolVersion": "2025-11-25", "capabilities": obj{}, "clientInfo": obj{"name": "old", "version": "1"}})
	wantResult(t, init)
	c.send(notification("notifications/initialized", nil))
	m := c.roundTrip(1, "tools/call", obj{"name": "work", "arguments": obj{"ms": 1, "text": "legacy"}})
	if r := wantResult(t, m); m.text() != "legacy" || r["taskId"] != nil {
		t.Fatalf("a legacy call of a task tool: %s", m)
	}
	m = c.roundTrip(2, "tools/call", obj{"name": "must", "arguments": obj{"ms": 1}})
	wantError(t, m, wire.CodeInternalError)
	m = c.roundTrip(3, "tasks/get", obj{"taskId": "x"})
	wantError(t, m, wire.CodeMethodNotFound)
	c.finish()
	if p.ran("must") != 0 {
		t.Fatal("the required task tool ran for a legacy session")
	}
}

// TestTasksMiddlewareSeesHandle: middleware wraps the call of a task tool
// once, seeing the task handle as its result, and the task methods.
func TestTasksMiddlewareSeesHandle(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	mw := func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			res, err := next(ctx, method, params)
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%s %T", method, res))
			mu.Unlock()
			return res, err
		}
	}
	s, _ := taskServer(t, nil, &Options{Middleware: []jsonrpc.Middleware{mw}})
	c := startStdio(t, s)
	m := c.roundTrip(1, "tools/call", taskParams(obj{"name": "work", "arguments": obj{"ms": 1}}))
	id := wantResult(t, m)["taskId"].(string)
	wantResult(t, c.roundTrip(2, "tasks/get", taskParams(obj{"taskId": id})))
	c.finish()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ";") != "tools/call *mcptasks.CreateTaskResult;tasks/get *mcptasks.GetTaskResult" {
		t.Fatalf("middleware saw %v", seen)
	}
}

// TestTASK15_ParamHeadersBeforeTask: the Mcp-Param-* headers of a task
// tool's call are checked while its request is open: a mismatch is the
// request's -32020 (HTTP 400), and no task or handler run follows; a
// matching call becomes a task.
func TestTASK15_ParamHeadersBeforeTask(t *testing.T) {
	s := New(testInfo, &Options{Tasks: &TaskOptions{}})
	var runs int32
	var mu sync.Mutex
	must(t, s.AddTool(mcp.Tool{Name: "deploy", InputSchema: []byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			runs++
			mu.Unlock()
			return TextResult("deployed"), nil
		}, RunAsTask(TaskRequired, 0)))
	h := startHTTP(t, s, nil)
	p := taskParams(obj{"name": "deploy", "arguments": obj{"region": "eu-west"}})
	resp, m := h.call(1, "tools/call", p, map[string]string{"Mcp-Param-Region": "us-east"})
	wantError(t, m, int(mcp.CodeHeaderMismatch))
	wantStatus(t, resp.StatusCode, http.StatusBadRequest)
	resp, m = h.call(2, "tools/call", paramsCaps(plainCaps, obj{"name": "deploy", "arguments": obj{"region": "eu-west"}}), map[string]string{"Mcp-Param-Region": "us-east"})
	wantError(t, m, int(mcp.CodeHeaderMismatch)) // headers before capabilities (A9)
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	n := runs
	mu.Unlock()
	if n != 0 {
		t.Fatalf("the handler ran %d times", n)
	}
	_, m = h.call(3, "tools/call", p, map[string]string{"Mcp-Param-Region": "eu-west"})
	if wantResult(t, m)["resultType"] != "task" {
		t.Fatalf("a matching call: %s", m)
	}
}
