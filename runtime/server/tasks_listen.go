package server

import (
	"context"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcptasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Task status notifications on subscriptions/listen streams (TASK-21):
// a listen request asks for them with notifications.taskIds (a member the
// extension adds to the core's SubscriptionFilter, kept in its Extra);
// the acknowledgement lists the ids the server honours, the tasks of the
// caller it knows; every change of such a task is sent as
// notifications/tasks carrying the task as tasks/get shows it.

// listenTasks returns the task ids a listen request asks for that the
// server honours (nil when it asks for none). Asking without declaring the
// extension is -32021 (TASK-21).
func (s *Server) listenTasks(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) ([]string, error) {
	raw, ok := p.Notifications.Extra.Get(taskIDsMember())
	if !ok || s.tasks == nil {
		return nil, nil
	}
	if !declaresTasks(&p.Meta.ClientCapabilities) {
		return nil, missingExtension()
	}
	var f mcptasks.TaskSubscriptionNotifications
	if err := wireimpl.Decode(append(append([]byte(`{"taskIds":`), raw...), '}'), &f); err != nil {
		return nil, wireimpl.InvalidParams(wireimpl.AtKey(err, "notifications"))
	}
	honored := []string{}
	for _, id := range f.TaskIds {
		if _, _, err := s.tasks.find(ctx, id); err == nil {
			honored = append(honored, id)
		}
	}
	return honored, nil
}

// taskIDsMember is the SubscriptionFilter member naming tasks, from the
// extension's table (the listen filter of notifications/tasks).
func taskIDsMember() string {
	if d, ok := mcptasks.LookupMethod(mcptasks.NotificationTaskStatus); ok {
		return d.ListenFilter
	}
	return ""
}

// honorTasks records on the listener, and in the acknowledged filter, the
// tasks it follows.
func honorTasks(l *listener, honored *mcp.SubscriptionFilter, ids []string) {
	if ids == nil {
		return
	}
	l.tasks = map[string]bool{}
	for _, id := range ids {
		l.tasks[id] = true
	}
	raw, err := wire.RawOf(ids)
	if err != nil {
		return
	}
	honored.Extra.Set(taskIDsMember(), raw) // beside the core filter's members
}

// publishTask queues rec for the listeners that follow its task.
func (h *hub) publishTask(rec *TaskRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		if !l.tasks[rec.ID] {
			continue
		}
		l.mu.Lock()
		if len(l.taskNotes) >= maxTaskNotes {
			l.taskNotes = l.taskNotes[1:] // a listener that does not read loses the oldest
		}
		l.taskNotes = append(l.taskNotes, rec)
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// maxTaskNotes bounds the task notifications queued for one listener.
const maxTaskNotes = 256

func (l *listener) takeTasks() []*TaskRecord {
	if l.tasks == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	recs := l.taskNotes
	l.taskNotes = nil
	return recs
}
