package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tests of the client side of the tasks extension: a real server
// (runtime/server with Options.Tasks) behind a recorder of what the client
// posts, and scripted fakes for what a real server would not do.

// taskBackend is a real server with task tools, and what its handlers saw.
type taskBackend struct {
	s         *server.Server
	cancelled chan string // a handler's context ended
	release   chan struct{}

	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, name string // body method; Mcp-Name header
	at           time.Time
	body         string
}

func newTaskBackend(t *testing.T, poll time.Duration) *taskBackend {
	t.Helper()
	b := &taskBackend{cancelled: make(chan string, 16), release: make(chan struct{})}
	b.s = server.New(mcp.Implementation{Name: "task-server", Version: "1"}, &server.Options{Tasks: &server.TaskOptions{PollInterval: poll}})
	add := func(name string, h server.ToolHandler, window time.Duration) {
		if err := b.s.AddTool(mcp.Tool{Name: name}, h, server.RunAsTask(server.TaskOptional, window)); err != nil {
			t.Fatal(err)
		}
	}
	add("slow", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(150 * time.Millisecond):
			return server.TextResult("slow done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, 0)
	add("gate", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-b.release:
			return server.TextResult("released"), nil
		case <-ctx.Done():
			b.cancelled <- "gate"
			return nil, ctx.Err()
		}
	}, 0)
	add("interview", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		name, err := req.Elicit("name", form("name"))
		if err != nil {
			return nil, err
		}
		city, err := req.Elicit("city", form("city"))
		if err != nil {
			return nil, err
		}
		return server.TextResult(name.Content["name"].String.Value + " from " + city.Content["city"].String.Value), nil
	}, 0)
	add("fails", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return nil, &wire.Error{Code: 4321, Message: "no quota"}
	}, 0)
	add("quick", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("quick"), nil
	}, time.Second)
	return b
}

func form(field string) mcp.ElicitRequestFormParams {
	return mcp.ElicitRequestFormParams{Message: "Your " + field + "?", RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
		Properties: map[string]mcp.PrimitiveSchemaDefinition{field: {StringSchema: &mcp.StringSchema{}}}, Required: []string{field}}}
}

// serve records each POST and hands it to the server.
func (b *taskBackend) url(t *testing.T) string {
	h := b.s.Handler(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		m := parseMsg(t, string(body))
		b.mu.Lock()
		b.reqs = append(b.reqs, recorded{method: m.Method, name: r.Header.Get(mcpheader.Name), at: time.Now(), body: string(body)})
		b.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (b *taskBackend) requests(method string) []recorded {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []recorded
	for _, r := range b.reqs {
		if r.method == method {
			out = append(out, r)
		}
	}
	return out
}

func taskClient(t *testing.T, url string, opts *client.Options) *client.Client {
	t.Helper()
	o := client.Options{Tasks: true}
	if opts != nil {
		o = *opts
		o.Tasks = true
	}
	return connectURL(t, url, modernOnly(&o))
}

// TestTASK22_CallToolFollowsTask: CallTool on a server that answers with a
// task polls tasks/get, no faster than the server asks, with the task id
// in Mcp-Name and the extension declared in _meta, and returns the task's
// result.
func TestTASK22_CallToolFollowsTask(t *testing.T) {
	poll := 40 * time.Millisecond
	b := newTaskBackend(t, poll)
	c := taskClient(t, b.url(t), nil)
	res, err := c.CallTool(context.Background(), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if textOf(t, res) != "slow done" {
		t.Fatalf("result %v", res)
	}
	gets := b.requests(mcptasks.MethodGetTask)
	if len(gets) < 2 {
		t.Fatalf("%d tasks/get for a 150 ms task polled every %v", len(gets), poll)
	}
	for i, g := range gets {
		m := parseMsg(t, g.body)
		id, _ := m.param("taskId")
		if g.name == "" || g.name != id { // TASK-15
			t.Fatalf("tasks/get %d: Mcp-Name %q, taskId %v", i, g.name, id)
		}
		if ext, ok := m.meta("io.modelcontextprotocol/clientCapabilities"); !ok || !strings.Contains(mustJSON(ext), mcptasks.ExtensionID) {
			t.Fatalf("tasks/get %d: _meta %v", i, m.Params["_meta"])
		}
		if v, _ := m.meta("io.modelcontextprotocol/protocolVersion"); v != mcp.ProtocolVersion {
			t.Fatalf("tasks/get %d: protocolVersion %v", i, v)
		}
		if i > 0 && g.at.Sub(gets[i-1].at) < poll*3/4 {
			t.Fatalf("tasks/get %d came %v after the one before; the server asks for %v", i, g.at.Sub(gets[i-1].at), poll)
		}
	}
	call := parseMsg(t, b.requests(mcp.MethodCallTool)[0].body)
	if ext, _ := call.meta("io.modelcontextprotocol/clientCapabilities"); mustJSON(ext) != `{"extensions":{"io.modelcontextprotocol/tasks":{}}}` {
		t.Fatalf("tools/call declares %s", mustJSON(ext))
	}
	// A call the server answers at once is no task.
	res, err = c.CallTool(context.Background(), "quick", nil)
	if err != nil || textOf(t, res) != "quick" {
		t.Fatalf("quick: %v, %v", res, err)
	}
}

// TestTASK22_InputThroughCallbacks: the task's input requests are answered
// through Options.Elicit and sent with tasks/update, each key once.
func TestTASK22_InputThroughCallbacks(t *testing.T) {
	b := newTaskBackend(t, 10*time.Millisecond)
	var mu sync.Mutex
	asked := map[string]int{}
	c := taskClient(t, b.url(t), &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[p.ElicitRequestFormParams.Message]++
		field := strings.TrimSuffix(strings.TrimPrefix(p.ElicitRequestFormParams.Message, "Your "), "?")
		v := map[string]string{"name": "Ada", "city": "London"}[field]
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{field: {String: wire.Some(v)}}}, nil
	}})
	res, err := c.CallTool(context.Background(), "interview", nil)
	if err != nil {
		t.Fatal(err)
	}
	if textOf(t, res) != "Ada from London" {
		t.Fatalf("result %s", textOf(t, res))
	}
	if asked["Your name?"] != 1 || asked["Your city?"] != 1 {
		t.Fatalf("callbacks: %v", asked)
	}
	if n := len(b.requests(mcptasks.MethodUpdateTask)); n != 2 {
		t.Fatalf("%d tasks/update, want one per round", n)
	}
}

// TestTASK22_KeysPresentedOnce: a server that still lists an answered
// input request (its update not yet visible) does not get it asked again.
func TestTASK22_KeysPresentedOnce(t *testing.T) {
	f := newHTTPFake(t)
	task := func(status string, extra obj) obj {
		r := obj{"resultType": "complete", "taskId": "t-1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
			"lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": nil, "pollIntervalMs": 5}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	elicit := obj{"a": obj{"method": "elicitation/create", "params": obj{"mode": "form", "message": "A?",
		"requestedSchema": obj{"type": "object", "properties": obj{"a": obj{"type": "string"}}}}}}
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		h := task("working", nil)
		h["resultType"] = "task"
		writeJSON(w, 200, result(m.ID, h))
	})
	var mu sync.Mutex
	gets := 0
	f.on(mcptasks.MethodGetTask, func(w http.ResponseWriter, r *http.Request, m msg) {
		mu.Lock()
		gets++
		n := gets
		mu.Unlock()
		if n <= 3 {
			writeJSON(w, 200, result(m.ID, task("input_required", obj{"inputRequests": elicit})))
			return
		}
		writeJSON(w, 200, result(m.ID, task("completed", obj{"result": textResult("done")})))
	})
	f.on(mcptasks.MethodUpdateTask, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, obj{"resultType": "complete"}))
	})
	calls := 0
	c := f.connect(t, &client.Options{Tasks: true, Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		calls++
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
	}})
	res, err := c.CallTool(context.Background(), "x", nil)
	if err != nil || textOf(t, res) != "done" {
		t.Fatalf("%v, %v", res, err)
	}
	if calls != 1 || len(f.requests(mcptasks.MethodUpdateTask)) != 1 {
		t.Fatalf("asked %d times, %d updates", calls, len(f.requests(mcptasks.MethodUpdateTask)))
	}
}

// TestTASK22_CancelOnContextEnd: when the caller's context ends, CallTool
// cancels the task with tasks/cancel and returns the context's error; the
// server's handler sees its context end.
func TestTASK22_CancelOnContextEnd(t *testing.T) {
	b := newTaskBackend(t, 10*time.Millisecond)
	c := taskClient(t, b.url(t), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "gate", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	select {
	case <-b.cancelled:
	case <-time.After(waitFor):
		t.Fatal("the server's handler was not cancelled")
	}
	cancels := b.requests(mcptasks.MethodCancelTask)
	if len(cancels) != 1 || cancels[0].name == "" {
		t.Fatalf("tasks/cancel requests: %v", cancels)
	}
}

// TestTASK13_StartToolAndResume: StartTool returns the task without
// waiting; its id lets another client (a restarted one) follow it; a
// failed task is its JSON-RPC error and a cancelled one ErrTaskCancelled.
func TestTASK13_StartToolAndResume(t *testing.T) {
	b := newTaskBackend(t, 10*time.Millisecond)
	url := b.url(t)
	c := taskClient(t, url, nil)
	ctx := context.Background()
	res, task, err := c.StartTool(ctx, "gate", nil)
	if err != nil || res != nil || task == nil {
		t.Fatalf("StartTool: %v, %v, %v", res, task, err)
	}
	st, err := task.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != task.ID || st.Status != mcptasks.TaskStatusWorking || st.Done() || st.PollInterval != 10*time.Millisecond {
		t.Fatalf("state %+v", st)
	}
	other := taskClient(t, url, nil).Task(task.ID)
	close(b.release)
	res, err = other.Wait(ctx)
	if err != nil || textOf(t, res) != "released" {
		t.Fatalf("Wait from another client: %v, %v", res, err)
	}

	_, err = c.CallTool(ctx, "fails", nil)
	var rpc *wire.Error
	if !errors.As(err, &rpc) || rpc.Code != 4321 || rpc.Message != "no quota" {
		t.Fatalf("a failed task: %v", err)
	}

	_, task, err = c.StartTool(ctx, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("a cancelled task: %v", err)
	}
	if _, err := c.Task("no-such-task").Get(ctx); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Fatalf("an unknown task: %v", err)
	}
}

// TestTASK13_TaskWithoutExtension: a client without Options.Tasks declares
// nothing and treats a task handle as an invalid result; the same tool
// then runs as an ordinary call on a real server.
func TestTASK13_TaskWithoutExtension(t *testing.T) {
	f := newHTTPFake(t)
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, obj{"resultType": "task", "taskId": "t", "status": "working", "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": 1}))
	})
	c := f.connect(t, nil)
	_, err := c.CallTool(context.Background(), "x", nil)
	var re *client.ResultError
	if !errors.As(err, &re) {
		t.Fatalf("a task for a client without the extension: %v", err)
	}
	call := f.requests(mcp.MethodCallTool)[0]
	if ext, _ := call.meta("io.modelcontextprotocol/clientCapabilities"); strings.Contains(mustJSON(ext), "tasks") {
		t.Fatalf("declared %s", mustJSON(ext))
	}

	b := newTaskBackend(t, 10*time.Millisecond)
	plain := connectURL(t, b.url(t), modernOnly(nil))
	res, err := plain.CallTool(context.Background(), "slow", nil)
	if err != nil || textOf(t, res) != "slow done" {
		t.Fatalf("an ordinary call: %v, %v", res, err)
	}
	if n := len(b.requests(mcptasks.MethodGetTask)); n != 0 {
		t.Fatalf("%d tasks/get for an ordinary call", n)
	}
}
