package server

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryTaskStore is the default TaskStore: tasks in this process's
// memory, removed once expired.
type MemoryTaskStore struct {
	now func() time.Time

	mu        sync.Mutex
	tasks     map[string]*TaskRecord
	lastSweep time.Time
}

// NewMemoryTaskStore returns an empty in-memory store.
func NewMemoryTaskStore() *MemoryTaskStore {
	return &MemoryTaskStore{now: time.Now, tasks: map[string]*TaskRecord{}}
}

// Create records t.
func (m *MemoryTaskStore) Create(ctx context.Context, t *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep()
	if _, dup := m.tasks[t.ID]; dup {
		return fmt.Errorf("server: memory task store: task %s exists already", t.ID)
	}
	m.tasks[t.ID] = t.clone()
	return nil
}

// Get returns a copy of the task id.
func (m *MemoryTaskStore) Get(ctx context.Context, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || t.Expired(m.now()) {
		return nil, fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
	}
	return t.clone(), nil
}

// Update replaces the task t.ID.
func (m *MemoryTaskStore) Update(ctx context.Context, t *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep()
	if old, ok := m.tasks[t.ID]; !ok || old.Expired(m.now()) {
		return fmt.Errorf("task %s: %w", t.ID, ErrTaskNotFound)
	}
	m.tasks[t.ID] = t.clone()
	return nil
}

// Delete removes the task id.
func (m *MemoryTaskStore) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	delete(m.tasks, id)
	m.mu.Unlock()
	return nil
}

// Len reports how many tasks the store holds, expired ones not yet
// removed included.
func (m *MemoryTaskStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}

// sweep removes expired tasks, at most once a second (writes call it, so
// the cost is spread over them).
func (m *MemoryTaskStore) sweep() {
	now := m.now()
	if now.Sub(m.lastSweep) < time.Second {
		return
	}
	m.lastSweep = now
	for id, t := range m.tasks {
		if t.Expired(now) {
			delete(m.tasks, id)
		}
	}
}
