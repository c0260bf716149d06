package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// taskManager runs the tasks of one Server (Options.Tasks).
type taskManager struct {
	s     *Server
	opts  TaskOptions
	store TaskStore
	owner string // names this server in TaskRecord.Owner
	now   func() time.Time

	mu      sync.Mutex
	runs    map[string]*taskRun // the tasks this server runs
	beating bool                // the lease renewer runs
}

func newTaskManager(s *Server, o TaskOptions) *taskManager {
	if o.Store == nil {
		o.Store = NewMemoryTaskStore()
	}
	switch {
	case o.TTL == 0:
		o.TTL = time.Hour
	case o.TTL < 0:
		o.TTL = 0 // unlimited
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	return &taskManager{s: s, opts: o, store: o.Store, owner: newTaskID(), now: time.Now, runs: map[string]*taskRun{}}
}

// newTaskID is an unguessable task id: 122 random bits in the form of a
// version 4 UUID (TASK-16).
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand ends the program instead
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// runPhase is where a task's first round stands.
type runPhase uint8

const (
	phaseWaiting  runPhase = iota // the request waits for the first round (RunAsTask's window)
	phaseAnswered                 // the first round answered the request: there is no task
	phaseTask                     // the request got the task handle
	phaseGone                     // the request went away before either
)

// taskRun is one task this server runs: the tool call's handler, run once
// per round (a round ends with a result, an error, or the input the
// handler asked for, as a multi round-trip request's attempts do).
type taskRun struct {
	m      *taskManager
	cancel context.CancelFunc
	sink   *taskSink
	first  chan roundOut // the first round's outcome while the request waits
	wake   chan struct{} // answers arrived, or the task was stopped

	created   chan struct{} // closed once the store holds the task (or could not)
	uncreated bool          // creation failed: the task does not exist

	mu      sync.Mutex
	phase   runPhase
	rec     *TaskRecord
	pending mcp.InputRequests  // outstanding input requests
	answers mcp.InputResponses // answers to requests no longer outstanding, for the next round
	resume  *resumeState       // application state and answers of the rounds so far
	stopped bool               // cancelled or expired: outcomes are dropped
	expiry  *time.Timer
}

// roundOut is the outcome of one round.
type roundOut struct {
	res *mcp.CallToolResultResponseResult
	err error
}

// resumeState is what a round leaves for the next: the state the handler
// saved (Request.SetState) and every answer so far, the in-memory
// counterpart of a requestState (mrtr.go).
type resumeState struct {
	state    []byte
	answered map[string]wire.Raw
}

type taskRunKey struct{}

// runOf is the task run a handler's context belongs to, or nil.
func runOf(ctx context.Context) *taskRun {
	if ctx == nil {
		return nil
	}
	r, _ := ctx.Value(taskRunKey{}).(*taskRun)
	return r
}

// resumeOf is the state a task's next round starts from (nil for the
// first round, and outside tasks): beginInputs uses it instead of a
// requestState.
func resumeOf(ctx context.Context) *resumeState {
	r := runOf(ctx)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resume
}

// recordInputs keeps, for a task's next round, the state and answers an
// input-required round ends with (inputRequired calls it).
func recordInputs(ctx context.Context, state []byte, answered map[string]wire.Raw) {
	if r := runOf(ctx); r != nil {
		r.mu.Lock()
		r.resume = &resumeState{state: state, answered: answered}
		r.mu.Unlock()
	}
}

// taskSink carries a tool call's notifications on its request's stream
// until the call becomes a task; then it carries nothing (TASK-12).
type taskSink struct {
	mu       sync.Mutex
	inner    sink
	detached bool
}

func (k *taskSink) notify(write func(e *jx.Encoder)) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return !k.detached && k.inner.notify(write)
}

// detach ends the notifications; one being written completes first.
func (k *taskSink) detach() {
	k.mu.Lock()
	k.detached = true
	k.mu.Unlock()
}

// startToolTask serves a tools/call of a tool registered with RunAsTask
// from a request that declares the extension: the first round runs for
// at most the tool's window; then the request gets the task handle,
// once the store holds the task (TASK-6), and the rounds go on.
func (m *taskManager) startToolTask(ctx context.Context, t *tool, p *mcp.CallToolRequestParams) (wireimpl.Codec, error) {
	ex := exchangeFrom(ctx)
	now := m.now()
	r := &taskRun{
		m:       m,
		sink:    &taskSink{inner: ex.out},
		first:   make(chan roundOut, 1),
		wake:    make(chan struct{}, 1),
		created: make(chan struct{}),
		rec: &TaskRecord{
			ID: newTaskID(), Status: mcptasks.TaskStatusWorking, CreatedAt: now, UpdatedAt: now,
			TTL: m.opts.TTL, PollInterval: m.opts.PollInterval, Principal: taskPrincipal(ex.principal),
			Owner: m.owner, LeaseUntil: now.Add(m.opts.Lease),
		},
	}
	// The handler outlives the request: its context keeps the request's
	// values but not its end; the task's own end cancels it.
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	tex := *ex
	tex.out = r.sink
	tctx = context.WithValue(withExchange(tctx, &tex), taskRunKey{}, r)
	params := *p
	params.Arguments = slices.Clone(p.Arguments) // the request's buffer is not the task's
	if t.task.window == 0 {
		r.phase = phaseTask
		r.sink.detach()
		res, err := m.create(ctx, r)
		if err != nil {
			return nil, err
		}
		go r.loop(tctx, params)
		return res, nil
	}
	go r.loop(tctx, params)
	timer := time.NewTimer(t.task.window)
	defer timer.Stop()
	select {
	case out := <-r.first:
		return m.answer(ctx, r, t, out)
	case <-ctx.Done():
		r.mu.Lock()
		gone := r.phase == phaseWaiting
		if gone {
			r.phase = phaseGone
		}
		r.mu.Unlock()
		if gone {
			cancel()
			return nil, ctx.Err()
		}
		return m.answer(ctx, r, t, <-r.first)
	case <-timer.C:
	}
	r.mu.Lock()
	if r.phase == phaseAnswered { // the handler answered as the window closed
		r.mu.Unlock()
		return m.answer(ctx, r, t, <-r.first)
	}
	r.phase = phaseTask
	r.mu.Unlock()
	r.sink.detach()
	return m.create(ctx, r)
}

// answer is the request's answer when the first round ended within the
// window: the round's own, except that a required task's result or error
// is a task already done.
func (m *taskManager) answer(ctx context.Context, r *taskRun, t *tool, out roundOut) (wireimpl.Codec, error) {
	irr := out.err == nil && out.res != nil && out.res.InputRequiredResult != nil
	if t.task.support != TaskRequired || irr || ctx.Err() != nil {
		r.cancel()
		if out.err != nil {
			return nil, out.err
		}
		return out.res, nil
	}
	r.mu.Lock()
	r.phase = phaseTask
	r.apply(out)
	r.mu.Unlock()
	return m.create(ctx, r)
}

// create records the new task and returns its handle: only once the
// store has it (TASK-6).
func (m *taskManager) create(ctx context.Context, r *taskRun) (wireimpl.Codec, error) {
	r.mu.Lock()
	rec := r.rec.clone()
	r.mu.Unlock()
	if err := m.store.Create(ctx, rec); err != nil {
		r.uncreated = true
		close(r.created)
		r.cancel()
		return nil, fmt.Errorf("server: recording task %s: %w", rec.ID, err)
	}
	m.register(r)
	close(r.created)
	return m.createResult(rec), nil
}

// register adds a created task to the tasks this server runs, arms its
// expiry and starts the lease renewer.
func (m *taskManager) register(r *taskRun) {
	r.mu.Lock()
	id, done, ttl := r.rec.ID, r.rec.Terminal(), r.rec.TTL
	if !done && ttl > 0 {
		r.expiry = time.AfterFunc(time.Until(r.rec.CreatedAt.Add(ttl)), r.expire)
	}
	r.mu.Unlock()
	if done {
		return // nothing runs: the store keeps it until it expires
	}
	m.mu.Lock()
	m.runs[id] = r
	start := !m.beating
	m.beating = true
	m.mu.Unlock()
	if start {
		go m.renewLeases()
	}
}

func (m *taskManager) unregister(id string) {
	m.mu.Lock()
	delete(m.runs, id)
	m.mu.Unlock()
}

// run is the task named id when this server runs it.
func (m *taskManager) run(id string) *taskRun {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runs[id]
}

// running reports how many tasks this server runs.
func (m *taskManager) running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.runs)
}

// renewLeases renews the leases of the tasks this server runs, every
// Lease/3, while it runs any (TaskOptions.Lease).
func (m *taskManager) renewLeases() {
	tick := time.NewTicker(m.opts.Lease / 3)
	defer tick.Stop()
	for range tick.C {
		m.mu.Lock()
		runs := make([]*taskRun, 0, len(m.runs))
		for _, r := range m.runs {
			runs = append(runs, r)
		}
		if len(runs) == 0 {
			m.beating = false
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
		for _, r := range runs {
			r.renew()
		}
	}
}

func (r *taskRun) renew() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.rec.Terminal() {
		return
	}
	r.rec.LeaseUntil = r.m.now().Add(r.m.opts.Lease)
	r.save(false)
}

// loop runs the rounds of a task until it is done, stopped, or its first
// round answered the request itself.
func (r *taskRun) loop(ctx context.Context, p mcp.CallToolRequestParams) {
	defer r.end()
	for {
		out := r.round(ctx, &p)
		if r.answered(out) {
			return
		}
		<-r.created
		if r.uncreated {
			return
		}
		retry, ok := r.settle(out)
		if !ok {
			return
		}
		if retry {
			// The handler asked to be run again without input
			// (RetryLater): after the polling interval.
			select {
			case <-ctx.Done():
				return
			case <-time.After(r.m.opts.PollInterval):
			}
			p.InputResponses, p.RequestState = nil, wire.Opt[string]{}
			continue
		}
		answers, ok := r.await()
		if !ok {
			return
		}
		p.InputResponses, p.RequestState = answers, wire.Opt[string]{}
	}
}

// round runs the handler once, through the server's tools/call handling;
// a panic fails the round (TASK-20), the server goes on.
func (r *taskRun) round(ctx context.Context, p *mcp.CallToolRequestParams) (out roundOut) {
	defer func() {
		if v := recover(); v != nil {
			r.m.s.log.Error("task handler panicked", "tool", p.Name, "panic", v, "stack", string(debug.Stack()))
			out = roundOut{err: &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: the tool failed"}}
		}
	}()
	res, err := handler{r.m.s}.CallTool(ctx, p)
	return roundOut{res: res, err: err}
}

// answered hands the first round's outcome to the request still waiting
// for it, and reports whether the request took it (no task then).
func (r *taskRun) answered(out roundOut) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.phase {
	case phaseWaiting:
		r.phase = phaseAnswered
		r.first <- out
		return true
	case phaseGone:
		return true
	}
	return false
}

// settle records a round's outcome. retry: run the next round at once,
// without input; ok false: the task is over.
func (r *taskRun) settle(out roundOut) (retry, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return false, false // cancelled or expired: that is its outcome
	}
	r.apply(out)
	r.save(true)
	if r.rec.Terminal() {
		return false, false
	}
	return len(r.pending) == 0, true
}

// apply sets the record from a round's outcome (r.mu held): a JSON-RPC
// error fails the task (TASK-10), a result completes it, isError or not
// (TASK-9), and input the handler asked for makes it wait (TASK-11).
func (r *taskRun) apply(out roundOut) {
	rec := r.rec
	rec.UpdatedAt = r.m.now()
	rec.InputRequests, rec.Result, rec.Error, rec.StatusMessage = nil, nil, nil, ""
	switch {
	case out.err != nil || out.res == nil || out.res.CallToolResult == nil && out.res.InputRequiredResult == nil:
		err := out.err
		if err == nil {
			err = fmt.Errorf("tools/call returned no result")
		}
		rpc := r.m.s.toRPCError(mcp.MethodCallTool, err)
		rec.Status, rec.StatusMessage = mcptasks.TaskStatusFailed, rpc.Message
		rec.Error = encodeRaw(rpc.EncodeJSON)
	case out.res.InputRequiredResult != nil:
		irr := out.res.InputRequiredResult
		r.pending = mcp.InputRequests{}
		for k, v := range irr.InputRequests {
			r.pending[k] = v
		}
		r.answers = mcp.InputResponses{}
		if len(r.pending) > 0 {
			rec.Status = mcptasks.TaskStatusInputRequired
			rec.InputRequests = encodeRaw(r.pending.EncodeJSON)
		} else {
			rec.Status = mcptasks.TaskStatusWorking
		}
	default:
		rec.Status = mcptasks.TaskStatusCompleted
		rec.Result = encodeRaw(out.res.CallToolResult.EncodeJSON)
	}
}

// await waits until every outstanding input request is answered and
// returns the answers; false when the task was stopped meanwhile.
func (r *taskRun) await() (mcp.InputResponses, bool) {
	for {
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return nil, false
		}
		if len(r.pending) == 0 { // deliver recorded the task working again
			answers := r.answers
			r.answers = nil
			r.mu.Unlock()
			return answers, true
		}
		r.mu.Unlock()
		<-r.wake
	}
}

// deliver takes the answers of a tasks/update: those to outstanding input
// requests; answers to any other key are ignored (TASK-14). An invalid
// answer to an outstanding request refuses the whole update (-32602).
func (r *taskRun) deliver(responses mcp.InputResponses) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.rec.Terminal() {
		return nil
	}
	var took []string
	for _, k := range wireimpl.SortedKeys(responses) {
		if _, out := r.pending[k]; !out {
			continue
		}
		v := responses[k]
		if err := v.Validate(); err != nil {
			return wireimpl.InvalidParams(wireimpl.AtKey(wireimpl.AtKey(err, k), "inputResponses"))
		}
		took = append(took, k)
	}
	if len(took) == 0 {
		return nil
	}
	for _, k := range took {
		r.answers[k] = responses[k]
		delete(r.pending, k)
	}
	r.rec.UpdatedAt = r.m.now()
	if len(r.pending) > 0 { // a partial answer: still waiting for the rest (TASK-14)
		r.rec.InputRequests = encodeRaw(r.pending.EncodeJSON)
	} else { // before the ack: a tasks/get after it sees the answers taken
		r.rec.Status, r.rec.InputRequests = mcptasks.TaskStatusWorking, nil
	}
	r.save(true)
	r.signal()
	return nil
}

// cancelTask ends a running task at the client's request (tasks/cancel):
// the handler's context is cancelled and the task is cancelled whatever
// the handler returns afterwards (TASK-18).
func (r *taskRun) cancelTask() {
	r.mu.Lock()
	if r.stopped || r.rec.Terminal() {
		r.mu.Unlock()
		return
	}
	r.stopped = true
	rec := r.rec
	rec.Status, rec.StatusMessage, rec.UpdatedAt = mcptasks.TaskStatusCancelled, "Cancelled at the client's request", r.m.now()
	rec.InputRequests = nil
	r.save(true)
	r.mu.Unlock()
	r.cancel()
	r.signal()
}

// expire removes a task whose time to live is over and stops its handler
// (TASK-19).
func (r *taskRun) expire() {
	r.mu.Lock()
	r.stopped = true
	id := r.rec.ID
	r.mu.Unlock()
	r.cancel()
	r.signal()
	if err := r.m.store.Delete(context.Background(), id); err != nil {
		r.m.s.log.Warn("cannot remove an expired task", "task", id, "error", err)
	}
	r.m.unregister(id)
}

func (r *taskRun) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// end runs when the rounds are over.
func (r *taskRun) end() {
	r.mu.Lock()
	if r.expiry != nil {
		r.expiry.Stop()
	}
	id := r.rec.ID
	r.mu.Unlock()
	r.cancel()
	r.m.unregister(id)
}

// save writes the record to the store (r.mu held) and, when the task's
// state changed, tells the listeners that asked (TASK-21).
func (r *taskRun) save(changed bool) {
	rec := r.rec.clone()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.m.store.Update(ctx, rec); err != nil {
		r.m.s.log.Warn("cannot record a task's state", "task", rec.ID, "status", string(rec.Status), "error", err)
		return
	}
	if changed {
		r.m.s.hub.publishTask(rec)
	}
}

// snapshot is the task's current state.
func (r *taskRun) snapshot() *TaskRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec.clone()
}

// encodeRaw encodes a value written by write into a Raw of its own.
func encodeRaw(write func(e *jx.Encoder)) wire.Raw {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	write(e)
	return slices.Clone(wire.Raw(e.Bytes()))
}
