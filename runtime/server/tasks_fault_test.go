package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Fault behaviour of tasks: restarts with a persistent store, handlers
// that panic, and a thousand tasks at once.

// fileStore is a TaskStore keeping one JSON file per task in a directory,
// written atomically (a new file renamed into place) and synced before
// Create returns, as a persistent store must (TASK-6). frozen stops its
// writes, as a crashed server's stop.
type fileStore struct {
	dir    string
	frozen atomic.Bool
	mu     sync.Mutex // serialises this handle's writes
}

func (f *fileStore) path(id string) string { return filepath.Join(f.dir, id+".json") }

func (f *fileStore) write(t *TaskRecord) error {
	if f.frozen.Load() {
		return nil // a server that crashed writes nothing more
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, ".task-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path(t.ID))
}

func (f *fileStore) Create(ctx context.Context, t *TaskRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := os.Stat(f.path(t.ID)); err == nil {
		return fmt.Errorf("task %s exists", t.ID)
	}
	return f.write(t)
}

func (f *fileStore) Get(ctx context.Context, id string) (*TaskRecord, error) {
	b, err := os.ReadFile(f.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
	}
	if err != nil {
		return nil, err
	}
	var t TaskRecord
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("task %s: %w", id, err)
	}
	if t.Expired(time.Now()) {
		return nil, fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
	}
	return &t, nil
}

func (f *fileStore) Update(ctx context.Context, t *TaskRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := os.Stat(f.path(t.ID)); err != nil {
		return fmt.Errorf("task %s: %w", t.ID, ErrTaskNotFound)
	}
	return f.write(t)
}

func (f *fileStore) Delete(ctx context.Context, id string) error {
	if f.frozen.Load() {
		return nil
	}
	if err := os.Remove(f.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// TestTaskFaultRestartPersistentStore: server A answers two calls with
// task handles and stops (crashes: it writes nothing more); server B,
// started on the same store, answers tasks/get for both: the finished task
// with its result, the unfinished one failed once A's lease has lapsed,
// instead of working forever. Principal binding survives the restart.
func TestTaskFaultRestartPersistentStore(t *testing.T) {
	dir := t.TempDir()
	lease := 300 * time.Millisecond
	who := &HTTPOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }}
	alice, bob := map[string]string{"X-User": "alice"}, map[string]string{"X-User": "bob"}

	storeA := &fileStore{dir: dir}
	a, probeA := taskServer(t, &TaskOptions{Store: storeA, Lease: lease, PollInterval: 10 * time.Millisecond}, nil)
	ha := startHTTP(t, a, who)
	_, m := ha.call(1, "tools/call", taskParams(obj{"name": "work", "arguments": obj{"ms": 1, "text": "before the crash"}}), alice)
	done := wantResult(t, m)["taskId"].(string)
	_, m = ha.call(2, "tools/call", taskParams(obj{"name": "gate"}), alice)
	running := wantResult(t, m)["taskId"].(string)
	eventually(t, "the first task completes", func() bool {
		_, m := ha.call(3, "tasks/get", taskParams(obj{"taskId": done}), alice)
		return m.Result != nil && m.Result["status"] == "completed"
	})
	storeA.frozen.Store(true) // A crashes
	ha.ts.Close()
	defer close(probeA.release) // let A's orphaned handler end with the test

	b, _ := taskServer(t, &TaskOptions{Store: &fileStore{dir: dir}, Lease: lease, PollInterval: 10 * time.Millisecond}, nil)
	hb := startHTTP(t, b, who)
	_, m = hb.call(4, "tasks/get", taskParams(obj{"taskId": done}), alice)
	r := wantResult(t, m)
	if r["status"] != "completed" || dig(r, "result", "content").([]any)[0].(obj)["text"] != "before the crash" {
		t.Fatalf("the finished task after the restart: %s", m)
	}
	_, m = hb.call(5, "tasks/get", taskParams(obj{"taskId": done}), bob)
	wantError(t, m, wire.CodeInvalidParams)

	start := time.Now()
	var last obj
	eventually(t, "the abandoned task fails", func() bool {
		_, m := hb.call(6, "tasks/get", taskParams(obj{"taskId": running}), alice)
		last = wantResult(t, m)
		return last["status"] != "working"
	})
	if last["status"] != "failed" || dig(last, "error", "code") != float64(wire.CodeInternalError) {
		t.Fatalf("the abandoned task: %v", last)
	}
	if waited := time.Since(start); waited > lease+time.Second {
		t.Fatalf("the abandoned task stayed working %v, its lease is %v", waited, lease)
	}
	// B recorded the failure: a third server sees it at once.
	c, _ := taskServer(t, &TaskOptions{Store: &fileStore{dir: dir}, Lease: time.Hour}, nil)
	hc := startHTTP(t, c, who)
	_, m = hc.call(7, "tasks/get", taskParams(obj{"taskId": running}), alice)
	if wantResult(t, m)["status"] != "failed" {
		t.Fatalf("after the failure was recorded: %s", m)
	}
	_, m = hc.call(8, "tasks/cancel", taskParams(obj{"taskId": running}), alice)
	wantResult(t, m) // a task already done: acknowledged
}

// TestTaskFaultLeaseRenewed: while its server runs a task, the task stays
// working past many lease periods: the server renews its lease.
func TestTaskFaultLeaseRenewed(t *testing.T) {
	dir := t.TempDir()
	lease := 150 * time.Millisecond
	a, p := taskServer(t, &TaskOptions{Store: &fileStore{dir: dir}, Lease: lease}, nil)
	defer close(p.release)
	ca := startStdio(t, a)
	m := ca.roundTrip(1, "tools/call", taskParams(obj{"name": "gate"}))
	id := wantResult(t, m)["taskId"].(string)
	b, _ := taskServer(t, &TaskOptions{Store: &fileStore{dir: dir}, Lease: lease}, nil)
	cb := startStdio(t, b)
	for deadline := time.Now().Add(5 * lease); time.Now().Before(deadline); time.Sleep(lease / 4) {
		if r := wantResult(t, cb.roundTrip(2, "tasks/get", taskParams(obj{"taskId": id}))); r["status"] != "working" {
			t.Fatalf("another server sees the running task as %v", r["status"])
		}
	}
	// Another server cannot change a task it does not run.
	e := wantError(t, cb.roundTrip(3, "tasks/cancel", taskParams(obj{"taskId": id})), wire.CodeInternalError)
	if e.Message != "Internal error: task "+id+" runs on another server instance" {
		t.Fatalf("cancel on another server: %+v", e)
	}
	wantResult(t, ca.roundTrip(4, "tasks/cancel", taskParams(obj{"taskId": id})))
}

// TestTaskFaultPanickingHandlers: many task handlers panicking at once
// each fail their own task; the server goes on serving tasks and ordinary
// calls, and no goroutine is left behind.
func TestTaskFaultPanickingHandlers(t *testing.T) {
	s, _ := taskServer(t, nil, nil)
	h := startHTTP(t, s, nil)
	base := runtime.NumGoroutine()
	const n = 50
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, m := h.call(i, "tools/call", taskParams(obj{"name": "boom"}), nil)
			ids[i], _ = m.Result["taskId"].(string)
		}()
	}
	wg.Wait()
	for i, id := range ids {
		if id == "" {
			t.Fatalf("call %d got no task", i)
		}
		eventually(t, "the panicked task fails", func() bool {
			_, m := h.call(100+i, "tasks/get", taskParams(obj{"taskId": id}), nil)
			return m.Result != nil && m.Result["status"] == "failed"
		})
	}
	_, m := h.call(1000, "tools/call", paramsCaps(plainCaps, obj{"name": "plain", "arguments": obj{"ms": 1, "text": "alive"}}), nil)
	if m.text() != "alive" {
		t.Fatalf("after the panics: %s", m)
	}
	h.tr.CloseIdleConnections()
	settledGoroutines(t, base+2)
}

// TestTaskFaultThousandTasks: a thousand tasks running at once on one
// server cost one goroutine each and bounded memory; once they are done
// the goroutines are gone and the memory is back.
func TestTaskFaultThousandTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand tasks")
	}
	const n = 1000
	s, p := taskServer(t, nil, nil)
	c := startStdio(t, s)
	runtime.GC()
	base := runtime.NumGoroutine()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	for i := range n {
		c.send(request(i, "tools/call", taskParams(obj{"name": "gate"})))
	}
	ids := make([]string, 0, n)
	for range n {
		m := c.next()
		r := wantResult(t, m)
		if r["status"] != "working" {
			t.Fatalf("task handle %s", m)
		}
		ids = append(ids, r["taskId"].(string))
	}
	runtime.GC()
	during := runtime.NumGoroutine()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	perTask := (int64(mem.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d tasks running: %d goroutines (%d before), heap %d KiB more (%d B per task)",
		n, during, base, (int64(mem.HeapAlloc)-int64(before.HeapAlloc))/1024, perTask)
	if during > base+n+16 {
		t.Fatalf("%d goroutines for %d tasks (%d before): more than one per task", during, n, base)
	}
	if perTask > 64<<10 {
		t.Fatalf("%d bytes of heap per running task", perTask)
	}

	close(p.release)
	for i, id := range ids {
		for {
			r := wantResult(t, c.roundTrip(fmt.Sprintf("get-%d", i), "tasks/get", taskParams(obj{"taskId": id})))
			if r["status"] == "completed" {
				break
			}
			if r["status"] != "working" {
				t.Fatalf("task %s: %v", id, r)
			}
			time.Sleep(time.Millisecond)
		}
	}
	settledGoroutines(t, base+2)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	kept := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d tasks done: %d goroutines, heap %d KiB more than before (%d B per finished task, kept until its ttl)",
		n, runtime.NumGoroutine(), (int64(after.HeapAlloc)-int64(before.HeapAlloc))/1024, kept)
	if kept > 8<<10 {
		t.Fatalf("%d bytes of heap kept per finished task", kept)
	}
	c.finish()
	_ = mcp.ProtocolVersion
}
