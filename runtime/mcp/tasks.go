package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
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
}

// How a running task waits for the client's answers: woken at once by tasks/update in this
// process, and looking at the store every answerPoll for those that reached another replica.
const answerPoll = 250 * time.Millisecond

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
	mu        sync.Mutex
	running   map[string]*runningTask // the tasks this process runs, by id
	wg        sync.WaitGroup
	stopped   bool
	owner     string // this process, in the tasks it runs
	shared    bool   // the store is not this process's alone: leases and watching
	watching  sync.Once
	unwatch   context.CancelFunc // ends the watch of other processes' changes
}

// runningTask is a task this process runs.
type runningTask struct {
	id     string
	cancel context.CancelFunc
	wake   chan struct{} // an answer came through this process
	mu     sync.Mutex
	keys   map[string]bool // input keys used, which a task never reuses
	n      int             // input keys made so far
}

func newTaskRunner(s *Server, o TaskOptions) *taskRunner {
	tr := &taskRunner{s: s, store: o.Store, ttl: o.TTL, poll: o.PollInterval, running: map[string]*runningTask{}, owner: newTaskID()}
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
	args = append([]byte(nil), args...) // the body outlives the request's buffer
	if t.Task == TaskDeferred {
		return tr.callDeferred(ctx, req, t, args)
	}
	if !tr.enter() {
		return nil, errShuttingDown
	}
	rec, taskCtx, rt, err := tr.start(ctx, req, t.Name)
	if err != nil {
		tr.wg.Done()
		return nil, err
	}
	go func() {
		defer tr.wg.Done()
		c := tr.s.runTool(taskCtx, t, args, dialect20260728)
		tr.finish(rt, c)
		putToolCall(c)
	}()
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
	started chan *TaskRecord // the task, once stored
}

type starterKey struct{}

// callDeferred runs a TaskDeferred tool's body on a goroutine of its own and answers with
// what comes first: its result, if it ends without calling StartTask, or the task.
func (tr *taskRunner) callDeferred(ctx context.Context, req *Request, t *toolEntry, args []byte) ([]byte, *jsonrpc.Error) {
	st := &starter{tr: tr, req: req, tool: t.Name, started: make(chan *TaskRecord, 1)}
	ended := make(chan *ToolCall, 1)
	if !tr.enter() {
		return nil, errShuttingDown
	}
	go func() {
		defer tr.wg.Done()
		c := tr.s.runTool(context.WithValue(ctx, starterKey{}, st), t, args, dialect20260728)
		st.mu.Lock()
		rt := st.task
		st.mu.Unlock()
		if rt == nil {
			ended <- c // a plain call: the request answers with its result
			return
		}
		tr.finish(rt, c)
		putToolCall(c)
	}()
	select {
	case c := <-ended:
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
// call.
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
	now := time.Now().UTC()
	rec := &TaskRecord{ID: newTaskID(), Tool: tool, Caller: caller, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: tr.ttl, PollInterval: tr.poll, Owner: tr.owner}
	if tr.shared {
		rec.LeaseUntil = now.Add(leaseFor)
	}
	if err := tr.store.Create(ctx, rec); err != nil {
		tr.s.logger.Error("mcp: cannot store a new task", "tool", tool, "error", err)
		return nil, nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: cannot store the task")
	}
	// The task's context is not the request's, which ends with the answer.
	taskCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rt := &runningTask{id: rec.ID, cancel: cancel, wake: make(chan struct{}, 1), keys: map[string]bool{}}
	// Registered with the check that the runner runs, so that shutdown fails every task it
	// did not see begin.
	tr.mu.Lock()
	if tr.stopped {
		tr.mu.Unlock()
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
	tc := &taskClient{tr: tr, rt: rt, version: req.client.protocolVersion(), caps: req.client.capabilities(), who: req.client.info()}
	r := &Request{srv: tr.s, client: tc, msg: &jsonrpc.Message{Method: methodToolsCall}, out: tc, row: methods[methodToolsCall], task: rt}
	return rec, context.WithValue(taskCtx, requestKey{}, r), rt, nil
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
// cancelled meanwhile stays cancelled.
func (tr *taskRunner) finish(rt *runningTask, c *ToolCall) {
	defer tr.forget(rt)
	result := append(json.RawMessage(nil), c.finish()...)
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	_, err := tr.update(ctx, rt.id, func(t *TaskRecord) error {
		if t.Status.Terminal() {
			return nil
		}
		if c.panicked {
			t.fail("The tool failed unexpectedly.", "internal error: tool "+c.name+" failed unexpectedly")
			return nil
		}
		t.Status, t.Result = TaskCompleted, result
		t.InputRequests, t.UpdatedAt = nil, time.Now().UTC()
		return nil
	})
	if err != nil {
		tr.s.logger.Error("mcp: cannot store the end of a task", "task", rt.id, "error", err)
	}
}

// fail ends a task with a JSON-RPC internal error (-32603) with the message, and says why
// in its status message.
func (t *TaskRecord) fail(statusMessage, message string) {
	t.Status, t.StatusMessage = TaskFailed, statusMessage
	t.Error = jsonrpc.AppendErrorObject(nil, jsonrpc.NewError(jsonrpc.CodeInternalError, message))
	t.InputRequests, t.UpdatedAt = nil, time.Now().UTC()
}

// hold renews the lease of a task this process runs until its body ends (ctx), and cancels
// the body when it finds the task over: cancelled through another replica.
func (tr *taskRunner) hold(ctx context.Context, rt *runningTask) {
	tick := time.NewTicker(leaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		over := false
		_, err := tr.store.Update(ctx, rt.id, func(t *TaskRecord) error {
			over = t.Status.Terminal()
			if !over {
				t.LeaseUntil = time.Now().UTC().Add(leaseFor)
			}
			return nil
		})
		if over || errors.Is(err, ErrTaskNotFound) {
			rt.cancel()
			return
		}
	}
}

// forget lets go of a task whose body has ended.
func (tr *taskRunner) forget(rt *runningTask) {
	rt.cancel()
	tr.mu.Lock()
	delete(tr.running, rt.id)
	tr.mu.Unlock()
}

// watchOthers starts, once, following the changes other processes make to tasks, for the
// subscriptions of this one, if the store can tell of them (TaskChanges).
func (tr *taskRunner) watchOthers() {
	w, ok := tr.store.(TaskChanges)
	if !ok {
		return
	}
	tr.watching.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		tr.mu.Lock()
		stopped := tr.stopped
		tr.unwatch = cancel
		if !stopped {
			tr.wg.Add(1)
		}
		tr.mu.Unlock()
		if stopped {
			cancel()
			return
		}
		go func() {
			defer tr.wg.Done()
			for ctx.Err() == nil {
				err := w.WatchTasks(ctx, func(id string) {
					if tr.s.listensTo(id) {
						if rec, err := tr.store.Get(ctx, id); err == nil {
							tr.s.notifyTask(rec)
						}
					}
				})
				if ctx.Err() != nil {
					return
				}
				tr.s.logger.Warn("mcp: watching the task store for other processes' changes", "error", err)
				select { // a store that is down is tried again, not hammered
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
			}
		}()
	})
}

// shutdown fails the tasks this process runs, since nobody will finish them, cancels their
// bodies, and waits for them to end, or for ctx.
func (tr *taskRunner) shutdown(ctx context.Context) {
	tr.mu.Lock()
	tr.stopped = true
	if tr.unwatch != nil {
		tr.unwatch()
	}
	running := make([]*runningTask, 0, len(tr.running))
	for _, rt := range tr.running {
		running = append(running, rt)
	}
	tr.mu.Unlock()
	for _, rt := range running {
		tr.update(ctx, rt.id, func(t *TaskRecord) error {
			if !t.Status.Terminal() {
				t.fail("The server stopped before the task ended.", "internal error: the server stopped before the task ended")
			}
			return nil
		})
		rt.cancel()
	}
	done := make(chan struct{})
	go func() { tr.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// update changes a task in the store (TaskStore.Update), and tells the subscriptions that
// listen to it when change changed it (set UpdatedAt).
func (tr *taskRunner) update(ctx context.Context, id string, change func(*TaskRecord) error) (*TaskRecord, error) {
	changed := false
	rec, err := tr.store.Update(ctx, id, func(t *TaskRecord) error {
		before := t.UpdatedAt
		if err := change(t); err != nil {
			return err
		}
		changed = !t.UpdatedAt.Equal(before)
		return nil
	})
	if err == nil && changed {
		tr.s.notifyTask(rec)
	}
	return rec, err
}

// writeTask writes a task's members; detailed adds what its status carries (inputRequests,
// result, error), as tasks/get answers.
func writeTask(e *jsonwire.Encoder, t *TaskRecord, detailed bool) {
	e.Key("taskId")
	e.String(t.ID)
	e.Key("status")
	e.String(string(t.Status))
	optionalString(e, "statusMessage", t.StatusMessage)
	e.Key("createdAt")
	e.String(t.CreatedAt.UTC().Format(time.RFC3339Nano))
	e.Key("lastUpdatedAt")
	e.String(t.UpdatedAt.UTC().Format(time.RFC3339Nano))
	e.Key("ttlMs")
	if t.TTL > 0 {
		e.Int(t.TTL.Milliseconds())
	} else {
		e.Null()
	}
	if t.PollInterval > 0 {
		e.Key("pollIntervalMs")
		e.Int(t.PollInterval.Milliseconds())
	}
	if !detailed {
		return
	}
	switch t.Status {
	case TaskInputRequired:
		e.Key("inputRequests")
		e.ObjectStart()
		for _, k := range slices.Sorted(maps.Keys(t.InputRequests)) {
			e.Key(k)
			e.Raw(t.InputRequests[k])
		}
		e.ObjectEnd()
	case TaskCompleted:
		e.Key("result")
		e.Raw(t.Result)
	case TaskFailed:
		e.Key("error")
		e.Raw(t.Error)
	}
}

// taskParams reads the taskId of a tasks/ request, after checking that the client declared
// the extension.
func taskParams(r *Request, params []byte) (id string, responses map[string]json.RawMessage, err *jsonrpc.Error) {
	if !r.ClientCapabilities().Tasks {
		return "", nil, missingTasksCapability
	}
	var p struct {
		TaskID         *string                    `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil {
		return "", nil, invalidParams("%s: params must be an object with a taskId string", r.Method())
	}
	if p.TaskID == nil {
		return "", nil, invalidParams("%s: taskId is required", r.Method())
	}
	return *p.TaskID, p.InputResponses, nil
}

// taskNotFound is the error for a task the store does not have, or that is another
// caller's: both get the same answer, after the same work (one read of the store), so that
// nobody learns that an id of someone else's exists.
func taskNotFound(err error) *jsonrpc.Error {
	if errors.Is(err, ErrTaskNotFound) {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Failed to retrieve task: Task not found (it may have expired)")
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: cannot read the task: "+err.Error())
}

// getTask answers tasks/get: the task, with what its status carries.
func getTask(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	id, _, perr := taskParams(r, params)
	if perr != nil {
		return nil, perr
	}
	tr := r.srv.tasks
	rec, err := tr.store.Get(ctx, id)
	if err == nil && !callerOwns(ctx, rec.Caller) {
		err = ErrTaskNotFound
	}
	if err != nil {
		return nil, taskNotFound(err)
	}
	if rec.ownerGone(time.Now()) {
		// The process that ran the task stopped without saying how it ended.
		if failed, err := tr.update(ctx, id, func(t *TaskRecord) error {
			if t.ownerGone(time.Now()) {
				t.fail("The server running the task stopped.", "internal error: the server running the task stopped before the task ended")
			}
			return nil
		}); err == nil {
			rec = failed
		}
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	writeTask(&e, rec, true)
	e.ObjectEnd()
	return e.Bytes(), nil
}

// updateTask answers tasks/update: the answers to questions the task has outstanding are
// handed to it, and their questions leave inputRequests at once (the task stays
// input_required while others remain). Answers to anything else are ignored.
func updateTask(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	id, responses, perr := taskParams(r, params)
	if perr != nil {
		return nil, perr
	}
	tr := r.srv.tasks
	_, err := tr.update(ctx, id, func(t *TaskRecord) error {
		if !callerOwns(ctx, t.Caller) {
			return ErrTaskNotFound // nothing is written
		}
		answered := false
		for k, v := range responses {
			if _, outstanding := t.InputRequests[k]; !outstanding {
				continue
			}
			if t.Answers == nil {
				t.Answers = map[string]json.RawMessage{}
			}
			t.Answers[k] = v
			delete(t.InputRequests, k)
			answered = true
		}
		if answered {
			if t.Status == TaskInputRequired && len(t.InputRequests) == 0 {
				t.Status = TaskWorking
			}
			t.UpdatedAt = time.Now().UTC()
		}
		return nil
	})
	if err != nil {
		return nil, taskNotFound(err)
	}
	tr.wake(id)
	return []byte(`{}`), nil
}

// cancelTask answers tasks/cancel: a task not yet over is cancelled, its body's context
// too. A task over already is left as it is; either way the answer is an empty result.
func cancelTask(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	id, _, perr := taskParams(r, params)
	if perr != nil {
		return nil, perr
	}
	tr := r.srv.tasks
	_, err := tr.update(ctx, id, func(t *TaskRecord) error {
		if !callerOwns(ctx, t.Caller) {
			return ErrTaskNotFound // nothing is written
		}
		if !t.Status.Terminal() {
			t.Status, t.StatusMessage = TaskCancelled, "Cancelled by the client."
			t.InputRequests, t.UpdatedAt = nil, time.Now().UTC()
		}
		return nil
	})
	if err != nil {
		return nil, taskNotFound(err)
	}
	tr.mu.Lock()
	rt := tr.running[id]
	tr.mu.Unlock()
	if rt != nil {
		rt.cancel()
	}
	return []byte(`{}`), nil
}

// wake tells a task this process runs that an answer came.
func (tr *taskRunner) wake(id string) {
	tr.mu.Lock()
	rt := tr.running[id]
	tr.mu.Unlock()
	if rt != nil {
		select {
		case rt.wake <- struct{}{}:
		default:
		}
	}
}

// statusMessage sets a running task's statusMessage (Progress in a task).
func (tr *taskRunner) statusMessage(ctx context.Context, rt *runningTask, msg string) {
	tr.update(ctx, rt.id, func(t *TaskRecord) error {
		if !t.Status.Terminal() && t.StatusMessage != msg {
			t.StatusMessage, t.UpdatedAt = msg, time.Now().UTC()
		}
		return nil
	})
}

// taskClient is the client of a task's body, as the body sees it: what the request that
// created the task said of the client, and questions that wait for tasks/update.
type taskClient struct {
	tr      *taskRunner
	rt      *runningTask
	version string
	caps    ClientCapabilities
	who     Implementation
}

func (tc *taskClient) protocolVersion() string          { return tc.version }
func (tc *taskClient) dialect() dialect                 { return dialect20260728 }
func (tc *taskClient) capabilities() ClientCapabilities { return tc.caps }
func (tc *taskClient) info() Implementation             { return tc.who }
func (tc *taskClient) logLevel() LogLevel               { return "" } // no log messages in tasks
func (tc *taskClient) lacking(string, string)           {}

func (tc *taskClient) respond(r *Request, m *jsonrpc.Message, result []byte, err *jsonrpc.Error) []byte {
	return nil // a task's body is not answered: its end is stored (finish)
}

// A task's body sends no messages: progress becomes its statusMessage, log messages are
// not part of tasks.
func (tc *taskClient) send([]byte) error  { return nil }
func (tc *taskClient) reply([]byte) error { return nil }
func (tc *taskClient) queue([]byte)       {}

// ask puts a question to the client in the task's inputRequests, and waits for the answer
// tasks/update brings, or for the task's end.
func (tc *taskClient) ask(ctx context.Context, r *Request, method string, params []byte) ([]byte, error) {
	rt := tc.rt
	key, _ := ctx.Value(inputKeyCtx{}).(string)
	rt.mu.Lock()
	if key == "" {
		for key == "" || rt.keys[key] {
			rt.n++
			key = inputKey(method) + "-" + strconv.Itoa(rt.n)
		}
	}
	reused := rt.keys[key]
	rt.keys[key] = true
	rt.mu.Unlock()
	if reused {
		return nil, fmt.Errorf("mcp: input key %q was used before in this task; each request to the client takes a key of its own", key)
	}
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("method")
	e.String(method)
	e.Key("params")
	e.Raw(params)
	e.ObjectEnd()
	question := e.Bytes()
	if _, err := tc.tr.update(ctx, rt.id, func(t *TaskRecord) error {
		if t.Status.Terminal() {
			return errTaskOver
		}
		if t.InputRequests == nil {
			t.InputRequests = map[string]json.RawMessage{}
		}
		t.InputRequests[key] = question
		t.Status, t.UpdatedAt = TaskInputRequired, time.Now().UTC()
		return nil
	}); err != nil {
		return nil, err
	}
	poll := time.NewTicker(answerPoll)
	defer poll.Stop()
	for {
		// Looked at first, taken only once there: a wait writes nothing to the store.
		t, err := tc.tr.store.Get(ctx, rt.id)
		switch {
		case err != nil:
			return nil, err
		case t.Answers[key] != nil:
			var answer json.RawMessage
			if _, err := tc.tr.update(ctx, rt.id, func(t *TaskRecord) error {
				answer = t.Answers[key]
				delete(t.Answers, key)
				return nil
			}); err != nil {
				return nil, err
			}
			return answer, nil
		case t.Status.Terminal():
			return nil, errTaskOver
		}
		select {
		case <-rt.wake:
		case <-poll.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

var errTaskOver = errors.New("mcp: the task is over (cancelled, or the server stopped)")
