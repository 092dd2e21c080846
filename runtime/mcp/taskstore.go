package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"
)

// TaskStore keeps the tasks of the tasks extension where every replica of a server can
// find them: a task created by one process is read, answered and cancelled through any.
// The default keeps them in the process's memory (NewMemoryTaskStore); a store shared by
// replicas is a database all of them reach (the redistasks package holds one on Redis).
//
// Implementations are safe for concurrent use. A task a store has let go, because its TTL
// passed, is not found. A store bounds the bytes it keeps (TaskRecord.Size, all tasks
// together): a Create, or an Update that makes a task larger, that would go past the bound
// fails with an error that wraps ErrTaskStoreFull, and stores nothing.
type TaskStore interface {
	// Create stores a new task. Once it returns, Get finds the task from any replica: a
	// server answers with a task only after Create (the extension's durable creation).
	Create(ctx context.Context, t *TaskRecord) error
	// Get returns the task with the id, or ErrTaskNotFound.
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Update changes a task atomically: it calls change with the task as stored, and
	// stores what change left unless change returns an error, which Update returns. It
	// returns the task as stored after, or ErrTaskNotFound. change may be called more than
	// once (a store may retry after a concurrent update), so it must only change the task.
	Update(ctx context.Context, id string, change func(*TaskRecord) error) (*TaskRecord, error)
}

// TaskChanges is a TaskStore that other processes share and that tells of the changes they
// make (redistasks does, through Redis pub/sub): with it, a subscription (notifications/tasks)
// hears of a task's changes whichever replica makes them, and a task waiting for its
// client's answer wakes when the answer reaches another replica, without polling.
type TaskChanges interface {
	// WatchTasks calls changed with the id of every task any process creates or updates
	// what clients see of (its UpdatedAt changes: not a renewal of its lease), until ctx
	// ends or the watch fails; it returns why it stopped.
	WatchTasks(ctx context.Context, changed func(id string)) error
}

// ErrTaskNotFound is the error of a TaskStore that has no task with the id asked for.
var ErrTaskNotFound = errors.New("mcp: task not found")

// ErrTaskStoreFull is wrapped by the error of a TaskStore that keeps as many bytes of tasks
// as it may: it stores no new task, and no update that makes a task larger, until tasks
// expire.
var ErrTaskStoreFull = errors.New("mcp: the task store is full")

// DefaultTaskStoreBytes is how many bytes of tasks (TaskRecord.Size, all tasks together) a
// store keeps at most, unless told otherwise: NewMemoryTaskStore's and redistasks'.
const DefaultTaskStoreBytes = 256 << 20

// minTaskSize is the least a task counts for: its fixed fields, and room enough that ending
// it (a short error, a status message) never needs more than it was given when made, so a
// full store can still end the tasks it has.
const minTaskSize = 4 << 10

// TaskStatus is the status of a task.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal: a task in one of
// them changes no more.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether a task in this status is over.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskRecord is a task as a TaskStore keeps it. Its JSON form (the field tags) is how
// stores that hold bytes keep it.
type TaskRecord struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Caller is whom the task belongs to: on a protected server, a key made of the issuer,
	// subject and client id of the token that created it; "" on a server that is not
	// protected, where the id alone reaches the task. Only that caller finds the task: to
	// any other, tasks/get, tasks/update, tasks/cancel and subscriptions/listen answer as
	// for an unknown id.
	Caller        string     `json:"caller,omitempty"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	// TTL is how long the task is kept from its creation; the store lets it go after.
	TTL          time.Duration `json:"ttl"`
	PollInterval time.Duration `json:"pollInterval"`
	// Result is the CallToolResult of a completed task; Error the JSON-RPC error object of
	// a failed one.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// InputRequests are the requests to the client the task waits for, by key, each a
	// {"method", "params"} object; Answers the client's answers to them (tasks/update)
	// that the tool has yet to take.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Answers       map[string]json.RawMessage `json:"answers,omitempty"`
	// Owner names the process that runs the task, and LeaseUntil until when it is known to
	// run it: the owner renews the lease while the task runs, and any replica reports a
	// task whose lease ran out as failed, rather than working forever. A zero LeaseUntil
	// never runs out (a store only this process uses).
	Owner      string    `json:"owner,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
}

// Size is the bytes a store counts the task as keeping: what it carries (its result or
// error, the questions it waits on and the answers to them, its status message, its tool's
// name and its caller), and at least 4 KiB for the rest, so that ending a task never makes
// it larger than it was made. Stores bound their total with it, servers each task
// (TaskOptions.MaxTaskBytes).
func (t *TaskRecord) Size() int {
	n := len(t.Tool) + len(t.Caller) + len(t.StatusMessage) + len(t.Result) + len(t.Error)
	for k, v := range t.InputRequests {
		n += len(k) + len(v)
	}
	for k, v := range t.Answers {
		n += len(k) + len(v)
	}
	return max(n, minTaskSize)
}

// ownerGone reports whether the process that runs an unfinished task stopped renewing its
// lease.
func (t *TaskRecord) ownerGone(now time.Time) bool {
	return !t.Status.Terminal() && !t.LeaseUntil.IsZero() && now.After(t.LeaseUntil)
}

// expired reports whether the task's TTL has passed.
func (t *TaskRecord) expired(now time.Time) bool {
	return t.TTL > 0 && now.After(t.CreatedAt.Add(t.TTL))
}

// clone is a deep copy, so that a store hands out records nobody else changes.
func (t *TaskRecord) clone() *TaskRecord {
	c := *t
	c.InputRequests = maps.Clone(t.InputRequests)
	c.Answers = maps.Clone(t.Answers)
	return &c
}

// memoryTaskStore keeps tasks in the memory of one process.
type memoryTaskStore struct {
	mu       sync.Mutex
	tasks    map[string]*TaskRecord
	size     int // of the tasks kept (TaskRecord.Size)
	maxBytes int // bound on size; negative: none
	swept    time.Time
}

// NewMemoryTaskStore returns a TaskStore that keeps tasks in this process's memory, at most
// DefaultTaskStoreBytes of them: the default, right for a server that runs as one process.
func NewMemoryTaskStore() TaskStore { return NewMemoryTaskStoreWithLimit(DefaultTaskStoreBytes) }

// NewMemoryTaskStoreWithLimit returns a TaskStore in this process's memory that keeps at
// most maxBytes of tasks (TaskRecord.Size, all tasks together); a negative maxBytes sets no
// bound.
func NewMemoryTaskStoreWithLimit(maxBytes int) TaskStore {
	return &memoryTaskStore{tasks: map[string]*TaskRecord{}, maxBytes: maxBytes}
}

func (m *memoryTaskStore) Create(ctx context.Context, t *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.sweep(now, false)
	if old := m.tasks[t.ID]; old != nil { // not made by newTaskID; replaced, as before
		m.size -= old.Size()
		delete(m.tasks, t.ID)
	}
	if err := m.room(0, t.Size(), now); err != nil {
		return err
	}
	m.tasks[t.ID] = t.clone()
	m.size += t.Size()
	return nil
}

func (m *memoryTaskStore) Get(ctx context.Context, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.find(id)
	if err != nil {
		return nil, err
	}
	return t.clone(), nil
}

func (m *memoryTaskStore) Update(ctx context.Context, id string, change func(*TaskRecord) error) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.find(id)
	if err != nil {
		return nil, err
	}
	c := t.clone()
	if err := change(c); err != nil {
		return nil, err
	}
	before, after := t.Size(), c.Size()
	if err := m.room(before, after, time.Now()); err != nil {
		return nil, err
	}
	m.tasks[id] = c
	m.size += after - before
	return c.clone(), nil
}

// room reports whether a task of size before may become one of size after: always when it
// does not grow; else if the store keeps within its bound, once expired tasks are let go.
// m.mu is held.
func (m *memoryTaskStore) room(before, after int, now time.Time) error {
	fits := func() bool { return after <= before || m.maxBytes < 0 || m.size-before+after <= m.maxBytes }
	if fits() {
		return nil
	}
	m.sweep(now, true)
	if fits() {
		return nil
	}
	return fmt.Errorf("%w: it keeps at most %d bytes of tasks, and holds %d", ErrTaskStoreFull, m.maxBytes, m.size)
}

// find returns the stored task, forgetting it if it expired. m.mu is held.
func (m *memoryTaskStore) find(id string) (*TaskRecord, error) {
	t := m.tasks[id]
	if t == nil {
		return nil, ErrTaskNotFound
	}
	if t.expired(time.Now()) {
		m.forget(id, t)
		return nil, ErrTaskNotFound
	}
	return t, nil
}

func (m *memoryTaskStore) forget(id string, t *TaskRecord) {
	delete(m.tasks, id)
	m.size -= t.Size()
}

// sweep forgets expired tasks, so that tasks nobody asks about again do not pile up: at most
// once a minute, or once a second when the store is full (force). m.mu is held.
func (m *memoryTaskStore) sweep(now time.Time, force bool) {
	every := time.Minute
	if force {
		every = time.Second
	}
	if now.Sub(m.swept) < every {
		return
	}
	m.swept = now
	for id, t := range m.tasks {
		if t.expired(now) {
			m.forget(id, t)
		}
	}
}
