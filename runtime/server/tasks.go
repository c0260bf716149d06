package server

import (
	"context"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tasks (the io.modelcontextprotocol/tasks extension, SEP-2663; see
// docs/tasks.md): a server with Options.Tasks answers a tools/call of a
// tool registered with RunAsTask with a task handle (CreateTaskResult)
// instead of its result, when the request declares the extension in its
// client capabilities. The client polls tasks/get until the task is done
// (the result, or the JSON-RPC error, inlined in the task), answers the
// task's input requests with tasks/update and may cancel it with
// tasks/cancel. The tool's handler is the one it always is: it runs as a
// task for such a client and as an ordinary call for any other (TASK-13).

// TaskSupport says whether calls of a tool may run as tasks.
type TaskSupport uint8

const (
	// TaskForbidden: calls never become tasks (the default).
	TaskForbidden TaskSupport = iota
	// TaskOptional: a call may become a task when its request declares
	// the tasks extension; any other call runs as an ordinary request.
	TaskOptional
	// TaskRequired: every call is answered with a task; a request that
	// does not declare the extension gets -32021 naming it, and the
	// handler does not run (TASK-4). Requests of 2025-11-25 sessions,
	// where the extension does not exist, are refused the same way.
	TaskRequired
)

// RunAsTask lets the tool's calls run as tasks on a server with
// Options.Tasks (without it the option has no effect). A call first runs
// as an ordinary request for at most window: when the handler answers
// sooner, its answer is the request's (a result, an error, or, when it
// returns ErrInputRequired, an InputRequiredResult, so that a multi
// round-trip exchange is over before any task exists, TASK-8); with
// TaskRequired a result or an error is then a task that is already done.
// A call still running after window becomes a task: the client gets the
// task handle, progress and log notifications stop (TASK-12), and input
// the handler asks for from then on (Elicit, Sample, Roots) is offered as
// the task's inputRequests, answered with tasks/update, after which the
// handler runs again with the answers, as for a multi round-trip retry.
// A window of 0 makes every call a task at once.
func RunAsTask(support TaskSupport, window time.Duration) ItemOption {
	return func(o *itemOptions) {
		o.task = taskPolicy{support: support, window: max(window, 0)}
	}
}

// taskPolicy is what RunAsTask says about a tool.
type taskPolicy struct {
	support TaskSupport
	window  time.Duration
}

// TaskOptions configure tasks (Options.Tasks). The zero value is usable.
type TaskOptions struct {
	// Store records the tasks. Default: NewMemoryTaskStore(), tasks of
	// this process only. A store shared by servers, or kept across
	// restarts, lets any of them answer tasks/get for any task; tasks/update
	// and tasks/cancel must still reach the server running the task (the
	// Mcp-Name header carries the task id for routing, TASK-15).
	Store TaskStore
	// TTL is how long a task lives from its creation (ttlMs); then it is
	// removed, and cancelled if it still runs (TASK-19). Default 1 hour;
	// negative means unlimited (ttlMs null): the task is kept until the
	// store drops it.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients
	// (pollIntervalMs). Default 1 second.
	PollInterval time.Duration
	// Lease bounds how long the task of a server that stopped stays
	// unfinished: the server running a task renews its lease in the store
	// every Lease/3, and a server that finds a task unfinished, run by no
	// server of its own process, with its lease past, fails it. Default
	// 30 seconds.
	Lease time.Duration
}

// TaskStore records tasks. Implementations must be safe for concurrent
// use; every method may be called by several servers sharing the store.
// A store holds copies: callers may change the records they pass and get.
type TaskStore interface {
	// Create records a new task. It returns only once the task is
	// durable: from then on a Get, by any server sharing the store, finds
	// it (the server sends the task handle only after Create returned,
	// TASK-6).
	Create(ctx context.Context, t *TaskRecord) error
	// Get returns the task named id, or an error wrapping
	// ErrTaskNotFound when there is none, also when it has expired
	// (TaskRecord.Expired).
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Update replaces the recorded task t.ID, or returns an error
	// wrapping ErrTaskNotFound when there is none.
	Update(ctx context.Context, t *TaskRecord) error
	// Delete removes the task named id; removing one there is not is no
	// error.
	Delete(ctx context.Context, id string) error
}

// ErrTaskNotFound reports a task a store does not have.
var ErrTaskNotFound = errors.New("server: task not found")

// TaskRecord is a task as a TaskStore keeps it: the state tasks/get shows
// (the DetailedTask of the extension) and what the server needs to run
// and protect it. Its JSON form (encoding/json) suits stores that keep
// records as documents.
type TaskRecord struct {
	ID     string              `json:"id"`
	Status mcptasks.TaskStatus `json:"status"`
	// StatusMessage describes the status ("" for none).
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// TTL is the time to live from CreatedAt; 0 for unlimited.
	TTL          time.Duration `json:"ttl,omitempty"`
	PollInterval time.Duration `json:"pollInterval,omitempty"`
	// InputRequests are the outstanding input requests of a task waiting
	// for input (an InputRequests object), Result the result of a
	// completed one (a CallToolResult), Error the JSON-RPC error object of
	// a failed one.
	InputRequests wire.Raw `json:"inputRequests,omitempty"`
	Result        wire.Raw `json:"result,omitempty"`
	Error         wire.Raw `json:"error,omitempty"`
	// Principal binds the task to who created it (a digest of the caller's
	// identity; "" without one): anyone else is told it does not exist.
	Principal string `json:"principal,omitempty"`
	// Owner names the server running the task; LeaseUntil is when its
	// claim lapses unless renewed (TaskOptions.Lease).
	Owner      string    `json:"owner,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil"`
}

// Expired reports whether the task's time to live is over at now.
func (t *TaskRecord) Expired(now time.Time) bool {
	return t.TTL > 0 && !now.Before(t.CreatedAt.Add(t.TTL))
}

// Terminal reports whether the task is done: completed, failed or
// cancelled.
func (t *TaskRecord) Terminal() bool {
	switch t.Status {
	case mcptasks.TaskStatusCompleted, mcptasks.TaskStatusFailed, mcptasks.TaskStatusCancelled:
		return true
	}
	return false
}

// clone copies t (its raw members are never modified in place).
func (t *TaskRecord) clone() *TaskRecord {
	c := *t
	return &c
}
