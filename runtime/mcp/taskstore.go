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
// together, and those of one caller): a Create, or an Update that makes a task larger, that
// would go past a bound fails with an error that wraps ErrTaskStoreFull (and
// ErrTaskCallerFull for the caller's bound), and stores nothing.
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

// TaskChanges is a TaskStore that several servers share and that tells of the changes they
// make: redistasks does, for replicas, through Redis pub/sub; the memory store does, for
// the Servers of one process that share it. With it, a subscription (notifications/tasks)
// hears of a task's changes whichever server makes them, and a task waiting for its
// client's answer wakes when the answer reaches another server, without polling.
type TaskChanges interface {
	// WatchTasks calls changed with the id of every task any server creates or updates
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

// ErrTaskCallerFull is wrapped by the error of a TaskStore that keeps as many bytes of one
// caller's tasks (TaskRecord.Caller) as it keeps for one caller: it stores no new task of
// that caller's, and no update that makes one larger, until some of them expire, while
// other callers' tasks are stored. It wraps ErrTaskStoreFull.
var ErrTaskCallerFull = fmt.Errorf("%w for this caller", ErrTaskStoreFull)

// DefaultTaskStoreBytes is how many bytes of tasks (TaskRecord.Size, all tasks together) a
// store keeps at most, unless told otherwise: NewMemoryTaskStore's and redistasks'. Of
// them, one caller's tasks keep a quarter at most (DefaultTaskCallerShare), so that one
// caller of a protected server cannot fill the store until the TTL and have everyone's new
// tasks refused.
const DefaultTaskStoreBytes = 256 << 20

// DefaultTaskCallerShare is the share of a store's bytes the tasks of one caller may keep,
// unless told otherwise: 1/DefaultTaskCallerShare of the bound of all tasks.
const DefaultTaskCallerShare = 4

// DefaultTaskCallerBytes is the bound of one caller's tasks in a store that keeps at most
// maxBytes: a DefaultTaskCallerShare of it, or none (negative) when maxBytes sets none.
func DefaultTaskCallerBytes(maxBytes int) int {
	if maxBytes < 0 {
		return -1
	}
	return maxBytes / DefaultTaskCallerShare
}

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
	mu        sync.Mutex
	tasks     map[string]*TaskRecord
	size      int            // of the tasks kept (TaskRecord.Size)
	byCaller  map[string]int // ... of each caller's (TaskRecord.Caller), but ""
	maxBytes  int            // bound on size; negative: none
	maxCaller int            // bound on each of byCaller; negative: none
	swept     time.Time
	watches   map[*storeWatcher]bool // the change feed's watchers (WatchTasks)
}

// MemoryTaskStoreOptions configure NewMemoryTaskStoreWithOptions.
type MemoryTaskStoreOptions struct {
	// MaxBytes bounds the bytes of tasks the store keeps (TaskRecord.Size, all tasks
	// together). The default is DefaultTaskStoreBytes; a negative value sets no bound.
	MaxBytes int
	// MaxBytesPerCaller bounds those of one caller's tasks (TaskRecord.Caller: the issuer,
	// subject and client of a protected server's caller). The default is a quarter of
	// MaxBytes (DefaultTaskCallerBytes); a negative value sets no bound. Tasks of a server
	// that is not protected, which has no callers to tell apart, count toward MaxBytes
	// only.
	MaxBytesPerCaller int
}

// NewMemoryTaskStore returns a TaskStore that keeps tasks in this process's memory, at most
// DefaultTaskStoreBytes of them, a quarter of that for one caller: the default, right for a
// server that runs as one process. Servers of one process may share it: it tells each of
// the changes the others make (TaskChanges).
func NewMemoryTaskStore() TaskStore { return NewMemoryTaskStoreWithOptions(MemoryTaskStoreOptions{}) }

// NewMemoryTaskStoreWithLimit returns a TaskStore in this process's memory that keeps at
// most maxBytes of tasks (TaskRecord.Size, all tasks together), and a quarter of that for
// one caller; a negative maxBytes sets no bound.
func NewMemoryTaskStoreWithLimit(maxBytes int) TaskStore {
	return newMemoryTaskStore(maxBytes, DefaultTaskCallerBytes(maxBytes))
}

// NewMemoryTaskStoreWithOptions returns a TaskStore in this process's memory configured by
// o.
func NewMemoryTaskStoreWithOptions(o MemoryTaskStoreOptions) TaskStore {
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultTaskStoreBytes
	}
	if o.MaxBytesPerCaller == 0 {
		o.MaxBytesPerCaller = DefaultTaskCallerBytes(o.MaxBytes)
	}
	return newMemoryTaskStore(o.MaxBytes, o.MaxBytesPerCaller)
}

func newMemoryTaskStore(maxBytes, maxCaller int) *memoryTaskStore {
	return &memoryTaskStore{tasks: map[string]*TaskRecord{}, byCaller: map[string]int{}, maxBytes: maxBytes, maxCaller: maxCaller,
		watches: map[*storeWatcher]bool{}}
}

func (m *memoryTaskStore) Create(ctx context.Context, t *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.sweep(now, false)
	if old := m.tasks[t.ID]; old != nil { // not made by newTaskID; replaced, as before
		m.forget(t.ID, old)
	}
	if err := m.room(nil, t, now); err != nil {
		return err
	}
	c := t.clone()
	m.tasks[t.ID] = c
	m.count(c, 1)
	m.announce(t.ID)
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
	if err := m.room(t, c, time.Now()); err != nil {
		return nil, err
	}
	if m.tasks[id] != t { // it expired as room swept
		return nil, ErrTaskNotFound
	}
	m.count(t, -1)
	m.tasks[id] = c
	m.count(c, 1)
	if !c.UpdatedAt.Equal(t.UpdatedAt) {
		m.announce(id)
	}
	return c.clone(), nil
}

// count adds a task's size (sign 1) to the store's counts, or takes it out (-1). m.mu is
// held.
func (m *memoryTaskStore) count(t *TaskRecord, sign int) {
	n := sign * t.Size()
	m.size += n
	if t.Caller == "" {
		return
	}
	if m.byCaller[t.Caller] += n; m.byCaller[t.Caller] == 0 {
		delete(m.byCaller, t.Caller)
	}
}

// room reports whether task old (nil for a new one) may become t: always when it does not
// grow; else if the store keeps within its bounds, of all tasks and of t's caller's, once
// expired tasks are let go. m.mu is held.
func (m *memoryTaskStore) room(old, t *TaskRecord, now time.Time) error {
	before, after := 0, t.Size()
	if old != nil {
		before = old.Size()
	}
	if after <= before {
		return nil
	}
	mine := func() int {
		n := m.byCaller[t.Caller] + after
		if old != nil && old.Caller == t.Caller {
			n -= before
		}
		return n
	}
	overall := func() bool { return m.maxBytes >= 0 && m.size-before+after > m.maxBytes }
	caller := func() bool { return t.Caller != "" && m.maxCaller >= 0 && mine() > m.maxCaller }
	if !overall() && !caller() {
		return nil
	}
	m.sweep(now, true)
	switch {
	case overall():
		return fmt.Errorf("%w: it keeps at most %d bytes of tasks, and holds %d", ErrTaskStoreFull, m.maxBytes, m.size)
	case caller():
		return fmt.Errorf("%w: it keeps at most %d bytes of one caller's tasks, and holds %d of this caller's", ErrTaskCallerFull, m.maxCaller, m.byCaller[t.Caller])
	}
	return nil
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
	m.count(t, -1)
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

// The memory store's change feed (TaskChanges), for Servers of one process that share the
// store: each watcher has the ids of the tasks changed since it last looked, each id once,
// so that a watcher that falls behind holds one entry per task at most and a write never
// waits for it.
type storeWatcher struct {
	mu     sync.Mutex
	ids    []string
	queued map[string]bool
	ready  chan struct{} // holds a signal while ids has some
}

var _ TaskChanges = (*memoryTaskStore)(nil)

// WatchTasks calls changed with the id of every task created, or updated in what clients
// see of it (UpdatedAt), through any Server that shares the store, until ctx ends.
func (m *memoryTaskStore) WatchTasks(ctx context.Context, changed func(id string)) error {
	return m.feed(ctx, m.watch(), changed)
}

// watch registers a watcher, which hears of every change from then on.
func (m *memoryTaskStore) watch() *storeWatcher {
	w := &storeWatcher{queued: map[string]bool{}, ready: make(chan struct{}, 1)}
	m.mu.Lock()
	m.watches[w] = true
	m.mu.Unlock()
	return w
}

// feed hands w's changes to changed until ctx ends, then lets w go.
func (m *memoryTaskStore) feed(ctx context.Context, w *storeWatcher, changed func(id string)) error {
	defer func() {
		m.mu.Lock()
		delete(m.watches, w)
		m.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.ready:
		}
		w.mu.Lock()
		ids := w.ids
		w.ids = nil
		clear(w.queued)
		w.mu.Unlock()
		for _, id := range ids {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			changed(id)
		}
	}
}

// announce tells every watcher that a task changed. m.mu is held.
func (m *memoryTaskStore) announce(id string) {
	for w := range m.watches {
		w.mu.Lock()
		if !w.queued[id] {
			w.queued[id] = true
			w.ids = append(w.ids, id)
		}
		w.mu.Unlock()
		select {
		case w.ready <- struct{}{}:
		default: // signalled already
		}
	}
}
