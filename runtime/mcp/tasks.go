package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The tasks extension of revision 2026-07-28 (io.modelcontextprotocol/tasks): a tools/call
// may be answered with a task handle (resultType "task") while the tool runs on; the client
// polls tasks/get for its status and result, answers what the tool asks with tasks/update,
// and may cancel it with tasks/cancel.
//
// A tool opts in with Tool.Task. When a request's client capabilities include the
// extension, the runtime stores the task (TaskStore), answers with it, and runs the tool's
// body in the background, with a context of the task's own: what the body asks the client
// (Elicit, Sample, Roots) becomes the task's input_required status with the question in
// inputRequests, answered by tasks/update; Progress becomes its statusMessage;
// cancellation (tasks/cancel) cancels the context. Otherwise the tool runs as a plain call.

// ExtensionTasks names the tasks extension in capabilities.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool may run as a task.
type TaskSupport int

const (
	// TaskNever: the tool runs as a plain call, always (the default).
	TaskNever TaskSupport = iota
	// TaskOptional: the tool runs as a task when the client declares the extension on the
	// request, else as a plain call.
	TaskOptional
	// TaskRequired: the tool runs only as a task; a client that does not declare the
	// extension gets error -32021 (missing required client capability).
	TaskRequired
	// TaskDeferred: the tool starts as a plain call and becomes a task where its body calls
	// StartTask, if the client declares the extension. What the body does before (such as
	// asking the client, in a multi round-trip request) is done before the task exists.
	TaskDeferred
)

// TaskOptions configure the tasks of a server.
type TaskOptions struct {
	// Store keeps the tasks; servers that run as several replicas share one. The default
	// keeps them in memory.
	Store TaskStore
	// TTL is how long a task is kept after it is created, finished or not; clients are
	// told it as ttlMs. The default is one hour.
	TTL time.Duration
	// PollInterval is how often clients are asked to poll tasks/get (pollIntervalMs). The
	// default is one second.
	PollInterval time.Duration

	// MaxTaskBytes bounds what the store keeps of one task (TaskRecord.Size): its result
	// or error, the questions it waits on and their answers, its status message. A result
	// past it fails the task (-32603, saying how large it was); a question past it is an
	// error of Elicit, Sample or Roots; answers past it are refused (tasks/update, -32602);
	// a status message is cut to fit. The default is 16 MiB; less than 4 KiB is taken as
	// 4 KiB. What all tasks keep together, and those of one caller, are the store's bounds
	// (DefaultTaskStoreBytes, and a quarter of it for one caller).
	MaxTaskBytes int
	// MaxTasks bounds the tasks this process runs at once, all callers together, and
	// MaxTasksPerCaller those of one caller of a protected server (the issuer, subject
	// and client of its token). Past either, tools/call is answered with error -32603,
	// which says so, and no task is made. The defaults are 1000 and 100; a negative value
	// sets no bound.
	MaxTasks          int
	MaxTasksPerCaller int
	// MaxListenersPerTask bounds the subscriptions (subscriptions/listen) that hear of one
	// task, and MaxListenersPerCaller the subscriptions of one caller of a protected server
	// that hear of tasks. A task past either is left out of the acknowledgement's taskIds:
	// the client is not agreed its notifications, and polls tasks/get instead. The defaults
	// are 10 and 100; a negative value sets no bound.
	MaxListenersPerTask   int
	MaxListenersPerCaller int
}

// The defaults of TaskOptions' bounds.
const (
	defaultMaxTaskBytes          = 16 << 20
	defaultMaxTasks              = 1000
	defaultMaxTasksPerCaller     = 100
	defaultMaxListenersPerTask   = 10
	defaultMaxListenersPerCaller = 100
)

// taskOption is an option's value v, or its default def when v is 0.
func taskOption(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// storeTimeout bounds a write of a task's end, which must happen even when the task's own
// context is over.
const storeTimeout = 10 * time.Second

// With a store that other processes share, the process that runs a task renews its lease on
// it every leaseRenew, for leaseFor; it also finds then that another replica cancelled it.
const (
	leaseFor   = 10 * time.Second
	leaseRenew = time.Second
)

// taskRunner runs a server's tasks and answers the tasks/ methods.
type taskRunner struct {
	s         *Server
	store     TaskStore
	ttl, poll time.Duration
	maxBytes  int // of one task
	// maxTasks and maxPerCaller bound the tasks this process runs; maxListeners and
	// maxCallerListeners the subscriptions to one task, and those of one caller to tasks.
	// Negative: no bound.
	maxTasks, maxPerCaller           int
	maxListeners, maxCallerListeners int

	mu       sync.Mutex
	running  map[string]*runningTask // the tasks this process runs, by id
	live     int                     // tasks counted in (reserve), running or about to
	byCaller map[string]int          // ... of each caller (a protected server's)
	wg       sync.WaitGroup
	stopped  bool
	drained  chan struct{} // closed when the last task ends, while shutdown waits for it
	owner    string        // this process, in the tasks it runs
	shared   bool          // the store is not this process's alone: leases and watching
	watching sync.Once
	unwatch  context.CancelFunc // ends the watch of other processes' changes
}

// runningTask is a task this process runs.
type runningTask struct {
	id     string
	caller string
	cancel context.CancelFunc
	mu     sync.Mutex
	// changed is closed, and replaced, when the task may have an answer: all the body's
	// questions waiting then look at the store again. Nothing else wakes them: a task that
	// waits for its client costs nothing.
	changed chan struct{}
	keys    map[string]bool // input keys used, which a task never reuses
	n       int             // input keys made so far
}

// changes returns the channel closed at the task's next change.
func (rt *runningTask) changes() <-chan struct{} {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.changed
}

// wake tells the questions the task waits on that an answer may have come.
func (rt *runningTask) wake() {
	rt.mu.Lock()
	close(rt.changed)
	rt.changed = make(chan struct{})
	rt.mu.Unlock()
}

func newTaskRunner(s *Server, o TaskOptions) *taskRunner {
	tr := &taskRunner{s: s, store: o.Store, ttl: o.TTL, poll: o.PollInterval, running: map[string]*runningTask{}, byCaller: map[string]int{}, owner: newTaskID(),
		maxBytes:           max(taskOption(o.MaxTaskBytes, defaultMaxTaskBytes), minTaskSize),
		maxTasks:           taskOption(o.MaxTasks, defaultMaxTasks),
		maxPerCaller:       taskOption(o.MaxTasksPerCaller, defaultMaxTasksPerCaller),
		maxListeners:       taskOption(o.MaxListenersPerTask, defaultMaxListenersPerTask),
		maxCallerListeners: taskOption(o.MaxListenersPerCaller, defaultMaxListenersPerCaller)}
	if tr.store == nil {
		tr.store = NewMemoryTaskStore()
	}
	_, local := tr.store.(*memoryTaskStore)
	tr.shared = !local
	if tr.ttl <= 0 {
		tr.ttl = time.Hour
	}
	if tr.poll <= 0 {
		tr.poll = time.Second
	}
	return tr
}

// hasTasks reports whether the server has a tool that may run as a task: then it declares
// the extension and answers the tasks/ methods.
func (s *Server) hasTasks() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if t.Task != TaskNever {
			return true
		}
	}
	return false
}

// newTaskID returns an id nobody can guess: 128 bits from crypto/rand. On a server that is
// not protected the id is all that reaches a task, a bearer capability; on a protected one
// the task is its caller's besides.
func newTaskID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// missingTasksCapability is the error for a client that did not declare the extension.
var missingTasksCapability = &jsonrpc.Error{
	Code:    CodeMissingRequiredClientCapability,
	Message: "Missing required client capability: the " + ExtensionTasks + " extension",
	Data:    []byte(`{"requiredCapabilities":{"extensions":{"` + ExtensionTasks + `":{}}}}`),
}

// callAsTask answers a tools/call of a tool that may run as a task, from a client that
// declared the extension.
func (tr *taskRunner) callAsTask(ctx context.Context, req *Request, t *toolEntry, args []byte) ([]byte, *jsonrpc.Error) {
	// The body outlives the request's buffer: its arguments are copied, and count in the
	// server's budget of bytes in flight until it ends (door.go), taken over from the
	// request's own share where it has one.
	held := int64(len(args))
	kept := req.keep(held)
	if !tr.s.budget.take(held-kept, kept) {
		tr.s.budget.give(kept)
		return nil, errBudget
	}
	args = append([]byte(nil), args...)
	if t.Task == TaskDeferred {
		return tr.callDeferred(ctx, req, t, args, held)
	}
	if !tr.enter() {
		tr.s.budget.give(held)
		return nil, errShuttingDown
	}
	rec, taskCtx, rt, err := tr.start(ctx, req, t.Name)
	if err != nil {
		tr.wg.Done()
		tr.s.budget.give(held)
		return nil, err
	}
	go func() {
		defer tr.wg.Done()
		defer tr.s.budget.give(held)
		tr.finish(rt, tr.s.runTool(taskCtx, t, args, rev20260728.dialect()))
	}()
	req.detach = true
	return tr.created(req, rec), nil
}

var errShuttingDown = jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the server is shutting down")

// enter counts a goroutine of the runner's in (tr.wg), unless the runner has stopped: under
// tr.mu, so that no goroutine is counted once shutdown has begun to wait.
func (tr *taskRunner) enter() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.stopped {
		return false
	}
	tr.wg.Add(1)
	return true
}

// starter is how StartTask finds the call it makes a task of.
type starter struct {
	tr      *taskRunner
	req     *Request
	tool    string
	mu      sync.Mutex
	task    *runningTask     // once started
	refused *jsonrpc.Error   // why the task could not start (the server runs as many as it may)
	started chan *TaskRecord // the task, once stored
}

type starterKey struct{}

// callDeferred runs a TaskDeferred tool's body on a goroutine of its own and answers with
// what comes first: its result, if it ends without calling StartTask, or the task.
func (tr *taskRunner) callDeferred(ctx context.Context, req *Request, t *toolEntry, args []byte, held int64) ([]byte, *jsonrpc.Error) {
	st := &starter{tr: tr, req: req, tool: t.Name, started: make(chan *TaskRecord, 1)}
	ended := make(chan *ToolCall, 1)
	if !tr.enter() {
		tr.s.budget.give(held)
		return nil, errShuttingDown
	}
	go func() {
		defer tr.wg.Done()
		defer tr.s.budget.give(held)
		c := tr.s.runTool(context.WithValue(ctx, starterKey{}, st), t, args, rev20260728.dialect())
		st.mu.Lock()
		rt := st.task
		st.mu.Unlock()
		if rt == nil {
			ended <- c // a plain call: the request answers with its result
			return
		}
		tr.finish(rt, c)
	}()
	select {
	case c := <-ended:
		st.mu.Lock()
		refused := st.refused
		st.mu.Unlock()
		if refused != nil {
			// The body went on as a plain call once StartTask failed; the client gets the
			// protocol's answer, as for a task tools/call could not make.
			putToolCall(c)
			return nil, refused
		}
		req.tool = c
		return c.finish(), nil
	case rec := <-st.started:
		return tr.created(req, rec), nil
	}
}

// StartTask makes the rest of a tool call a task, if the tool's Task is TaskDeferred and
// the client declared the tasks extension: the client is answered with the task now, and
// the body goes on with the returned context, which belongs to the task (use it from here
// on: the request's own ends with its answer). What the body asks the client from here on
// waits for tasks/update. Otherwise StartTask returns ctx, and the call goes on as a plain
// call. When the task cannot be made (the server runs as many tasks as it may, or its store
// is full), StartTask returns an error, and whatever the body does then, the client is
// answered with the protocol error that says why.
func StartTask(ctx context.Context) (context.Context, error) {
	st, _ := ctx.Value(starterKey{}).(*starter)
	if st == nil {
		return ctx, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.task != nil {
		return ctx, errors.New("mcp: StartTask called twice")
	}
	rec, taskCtx, rt, err := st.tr.start(ctx, st.req, st.tool)
	if err != nil {
		st.refused = err
		return ctx, errors.New("mcp: cannot start the task: " + err.Message)
	}
	st.task = rt
	st.started <- rec
	return taskCtx, nil
}

// start stores a new task and returns it with the context its body runs with.
func (tr *taskRunner) start(ctx context.Context, req *Request, tool string) (*TaskRecord, context.Context, *runningTask, *jsonrpc.Error) {
	caller, kerr := callerKey(ctx)
	if kerr != nil {
		return nil, nil, nil, kerr // a task nobody could be told apart from others' is not made
	}
	if err := tr.reserve(caller); err != nil {
		return nil, nil, nil, err
	}
	now := time.Now().UTC()
	rec := &TaskRecord{ID: newTaskID(), Tool: tool, Caller: caller, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: tr.ttl, PollInterval: tr.poll, Owner: tr.owner}
	if tr.shared {
		rec.LeaseUntil = now.Add(leaseFor)
	}
	if err := tr.store.Create(ctx, rec); err != nil {
		tr.release(caller)
		switch {
		// Conditions the caller may wait out: said as they are.
		case errors.Is(err, ErrTaskCallerFull):
			return nil, nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: cannot make a task: your tasks keep as many bytes as the server keeps for one caller; try again once some of them have expired (their ttlMs)")
		case errors.Is(err, ErrTaskStoreFull):
			return nil, nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: cannot make a task: the server keeps as many tasks as it may; try again once some have expired (their ttlMs)")
		}
		tr.s.logger.ErrorContext(ctx, "mcp: cannot store a new task", "tool", tool, "error", err)
		return nil, nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: cannot store the task")
	}
	// The task's context is not the request's, which ends with the answer.
	taskCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rt := &runningTask{id: rec.ID, caller: caller, cancel: cancel, changed: make(chan struct{}), keys: map[string]bool{}}
	// Registered with the check that the runner runs, so that shutdown fails every task it
	// did not see begin.
	tr.mu.Lock()
	if tr.stopped {
		tr.mu.Unlock()
		tr.release(caller)
		cancel()
		tr.update(context.WithoutCancel(ctx), rec.ID, func(t *TaskRecord) error {
			t.fail("The server stopped before the task began.", "internal error: the server is shutting down")
			return nil
		})
		return nil, nil, nil, errShuttingDown
	}
	tr.running[rec.ID] = rt
	if tr.shared {
		tr.wg.Add(1)
		go func() {
			defer tr.wg.Done()
			tr.hold(taskCtx, rt)
		}()
	}
	tr.mu.Unlock()
	tc := &taskClient{tr: tr, rt: rt, rev: req.client.revision(), caps: req.client.capabilities(), who: req.client.info()}
	r := &Request{srv: tr.s, client: tc, msg: &jsonrpc.Message{Method: methodToolsCall}, w: tc, row: methods[methodToolsCall], task: rt}
	return rec, context.WithValue(taskCtx, requestKey{}, r), rt, nil
}

// reserve counts a task of the caller's in, unless this process runs as many as it may, all
// callers together or that caller's; release counts it out. On a server that is not
// protected, where callers cannot be told apart, only the first bound holds.
func (tr *taskRunner) reserve(caller string) *jsonrpc.Error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch {
	case tr.maxTasks >= 0 && tr.live >= tr.maxTasks:
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "server busy: it runs "+strconv.Itoa(tr.maxTasks)+" tasks at once, as many as it may; try again once some have ended")
	case caller != "" && tr.maxPerCaller >= 0 && tr.byCaller[caller] >= tr.maxPerCaller:
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "server busy: "+strconv.Itoa(tr.maxPerCaller)+" tasks of yours are running, as many as one caller may run at once; wait for one to end, or cancel one (tasks/cancel)")
	}
	tr.live++
	if caller != "" {
		tr.byCaller[caller]++
	}
	return nil
}

func (tr *taskRunner) release(caller string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.live--
	if caller != "" {
		if tr.byCaller[caller]--; tr.byCaller[caller] == 0 {
			delete(tr.byCaller, caller)
		}
	}
}

// created is the CreateTaskResult of a new task.
func (tr *taskRunner) created(req *Request, rec *TaskRecord) []byte {
	if q, ok := req.client.(*statelessRequest); ok {
		q.resultType = "task"
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	writeTask(&e, rec, false)
	e.ObjectEnd()
	return e.Bytes()
}

// finish stores how a task's body ended: its result, or, if it panicked, a failure. A task
// cancelled meanwhile stays cancelled. A result larger than a task may keep, or than the
// store has room for, fails the task, saying so: the client learns why it gets no result.
func (tr *taskRunner) finish(rt *runningTask, c *ToolCall) {
	defer tr.forget(rt)
	out := c.finish()
	panicked, name, size := c.panicked, c.name, len(out)
	var result json.RawMessage
	if size <= tr.maxBytes {
		result = append(json.RawMessage(nil), out...)
	}
	putToolCall(c) // what the call built the result with goes before the store copies it
	out = nil
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	// The result counts in the server's budget until it is stored: results finishing at
	// once wait for room rather than be copied all together.
	held := tr.s.budget.wait(ctx, int64(len(result)))
	defer tr.s.budget.give(held)
	tooLarge := false
	end := func(t *TaskRecord) error {
		switch {
		case t.Status.Terminal():
		case panicked:
			t.fail("The tool failed unexpectedly.", "internal error: tool "+name+" failed unexpectedly")
		default:
			t.Status, t.Result = TaskCompleted, result
			t.InputRequests, t.Answers, t.UpdatedAt = nil, nil, time.Now().UTC()
			if tooLarge = result == nil || t.Size() > tr.maxBytes; tooLarge {
				t.fail("The result was too large to keep.", fmt.Sprintf("internal error: the tool's result is %d bytes, more than the %d this server keeps for a task", size, tr.maxBytes))
			}
		}
		return nil
	}
	_, err := tr.update(ctx, rt.id, end)
	if err == nil && tooLarge {
		tr.s.logger.WarnContext(ctx, "mcp: a task's result is larger than a task may keep (TaskOptions.MaxTaskBytes): the task failed", "task", rt.id, "tool", name, "bytes", size)
	}
	if errors.Is(err, ErrTaskStoreFull) {
		why := fmt.Sprintf("internal error: the server's task store is full: it has no room for the tool's result (%d bytes) until other tasks expire", size)
		if errors.Is(err, ErrTaskCallerFull) {
			why = fmt.Sprintf("internal error: your tasks keep as many bytes as the server keeps for one caller: no room for the tool's result (%d bytes) until some of them expire", size)
		}
		_, err = tr.update(ctx, rt.id, func(t *TaskRecord) error {
			if !t.Status.Terminal() {
				t.fail("No room was left to keep the result.", why)
			}
			return nil
		})
	}
	if err != nil {
		tr.s.logger.ErrorContext(ctx, "mcp: cannot store the end of a task", "task", rt.id, "error", err)
	}
}

// fail ends a task with a JSON-RPC internal error (-32603) with the message, and says why
// in its status message. What it carried for its client is let go.
func (t *TaskRecord) fail(statusMessage, message string) {
	t.Status, t.StatusMessage = TaskFailed, statusMessage
	t.Error = jsonrpc.AppendErrorObject(nil, jsonrpc.NewError(jsonrpc.CodeInternalError, message))
	t.Result, t.InputRequests, t.Answers, t.UpdatedAt = nil, nil, nil, time.Now().UTC()
}
