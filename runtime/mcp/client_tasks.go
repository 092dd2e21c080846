package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The client's side of tasks: a tools/call the server runs as a task is followed until it
// ends, and CallTool returns its result as if the call had answered it.
//
//   - Revision 2026-07-28 (the tasks extension): the client declares the extension on every
//     request, and the server decides. The client subscribes to the task's changes
//     (subscriptions/listen with its taskId) where the server offers the extension, and
//     learns of each at once from notifications/tasks; it polls tasks/get before the
//     subscription is acknowledged, where the server refuses it, and now and then besides.
//     A task's status carries a message and no numbers: that message is what the caller's
//     progress function gets (ProgressNotice.Status set).
//   - Revision 2025-11-25 (experimental tasks): the client decides. It asks for a task
//     (params.task) when the server declares task-augmented tools/call and the tool's
//     execution.taskSupport is "required", or "optional" and the call's context says AsTask;
//     then it waits for tasks/result, which the server answers once the task has ended,
//     answering on the way what the task asks (elicitation, sampling) as any request of the
//     server's. Progress keeps the call's token; status messages come from
//     notifications/tasks/status and from polling tasks/get meanwhile.

// Bounds on how often the client polls a task, whatever the server suggests.
const (
	minTaskPoll = 20 * time.Millisecond
	maxTaskPoll = 5 * time.Second
)

// taskBackstop is how often the client polls a task whose changes it hears of through a
// subscription: a notification lost on the way delays the end by this much at most.
const taskBackstop = 5 * time.Second

// poll is how long to wait before asking for the task again.
func (t *taskState) poll() time.Duration {
	wait := time.Second
	if ms := cmp.Or(t.PollIntervalMs, t.PollInterval); ms != nil {
		wait = time.Duration(*ms) * time.Millisecond
	}
	return min(max(wait, minTaskPoll), maxTaskPoll)
}

// older reports whether s says less than t already did: t has ended, or s was last
// updated before t (an answer to a poll overtaken by a notification).
func (s *taskState) older(t *taskState) bool {
	if t.Status.Terminal() {
		return true
	}
	a, errA := time.Parse(time.RFC3339Nano, s.LastUpdatedAt)
	b, errB := time.Parse(time.RFC3339Nano, t.LastUpdatedAt)
	return errA == nil && errB == nil && a.Before(b)
}

// taskWatch gathers what notifications say of a task the client follows, in the order
// they came, for the goroutine that follows it.
type taskWatch struct {
	mu     sync.Mutex
	states []taskState
	signal chan struct{} // a state came (buffered 1)
}

// maxWatched bounds the states a watch keeps between two looks: a server that sends
// faster than the client follows loses the oldest (each carries the whole task).
const maxWatched = 64

func (w *taskWatch) add(t taskState) {
	w.mu.Lock()
	if len(w.states) == maxWatched {
		w.states = slices.Delete(w.states, 0, 1)
	}
	w.states = append(w.states, t)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *taskWatch) take() []taskState {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.states
	w.states = nil
	return s
}

// watchTask starts gathering the notifications about a task; stop ends it.
func (c *Client) watchTask(id string) (w *taskWatch, stop func()) {
	w = &taskWatch{signal: make(chan struct{}, 1)}
	c.mu.Lock()
	c.watching[id] = w
	c.mu.Unlock()
	return w, func() {
		c.mu.Lock()
		delete(c.watching, id)
		c.mu.Unlock()
	}
}

// taskNotified hands notifications/tasks (or notifications/tasks/status) to the call that
// follows the task, and reports whether one does.
func (c *Client) taskNotified(params []byte) bool {
	var t taskState
	d := jsonwire.NewDecoder(params)
	t.decode(d)
	if d.Finish(); d.Failed() || t.TaskID == "" {
		return false
	}
	c.mu.Lock()
	w := c.watching[t.TaskID]
	c.mu.Unlock()
	if w == nil {
		return false
	}
	w.add(t)
	return true
}

// taskSubscription is a subscriptions/listen request for one task's changes.
type taskSubscription struct {
	agreed chan bool     // the acknowledgement came: whether it names the task
	ended  chan struct{} // the request ended (refused, dropped, or stopped)
	cancel context.CancelFunc
}

func (s *taskSubscription) stop() {
	s.cancel()
	<-s.ended
}

// listenToTask opens a subscriptions/listen request for the task's notifications/tasks.
func (c *Client) listenToTask(id string) *taskSubscription {
	ctx, cancel := context.WithCancel(context.Background())
	s := &taskSubscription{agreed: make(chan bool, 1), ended: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.ended)
		err := c.listenRequest(ctx, map[string]any{"taskIds": []string{id}}, func(params []byte) {
			select {
			case s.agreed <- slices.Contains(acknowledgedTasks(params), id):
			default:
			}
		})
		if err != nil && ctx.Err() == nil {
			c.logger.Debug("mcp: no subscription to a task's changes; polling it", "task", id, "error", err.Error())
		}
	}()
	return s
}

// isTaskHandle reports whether a stateless result is a CreateTaskResult (the tasks
// extension), which the client declares it takes.
func isTaskHandle(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"task"`)) {
		return false
	}
	v, _ := stringParam(raw, "resultType")
	return v == "task"
}

// awaitTask follows a task the server made of a call (revision 2026-07-28) until it ends,
// and returns its result as the call's: through a subscription to its changes where the
// server offers one, else by polling tasks/get as often as the server asks. It answers
// what the task asks (inputRequests) with the client's handlers, each key once, through
// tasks/update; hands status messages to the context's progress function (WithProgress);
// and cancels the task (tasks/cancel) when ctx ends first.
func (c *Client) awaitTask(ctx context.Context, rev revision, handle []byte) ([]byte, error) {
	var t taskState
	d := jsonwire.NewDecoder(handle)
	switch t.decode(d); {
	case d.Failed():
		return nil, fmt.Errorf("the server's task handle does not read:\n%s", d.Summary())
	case t.TaskID == "":
		return nil, fmt.Errorf("the server's task handle has no taskId: %.200s", handle)
	}
	v := newTaskView(ctx, t)
	w, unwatch := c.watchTask(t.TaskID)
	defer unwatch()
	var agreed <-chan bool
	var ended <-chan struct{}
	if !t.Status.Terminal() && c.Server().Capabilities.Tasks {
		sub := c.listenToTask(t.TaskID)
		defer sub.stop()
		agreed, ended = sub.agreed, sub.ended
	}
	subscribed := false
	answered := map[string]bool{}
	for {
		t := v.t
		switch t.Status {
		case TaskCompleted:
			if t.Result == nil {
				return nil, fmt.Errorf("task %s completed without a result", t.TaskID)
			}
			return t.Result, nil
		case TaskFailed:
			if t.Error == nil {
				return nil, fmt.Errorf("task %s failed: %s", t.TaskID, t.StatusMessage)
			}
			return nil, t.Error
		case TaskCancelled:
			return nil, fmt.Errorf("task %s was cancelled: %s", t.TaskID, t.StatusMessage)
		case TaskInputRequired:
			if err := c.answerTask(ctx, rev, t, answered); err != nil {
				return nil, err
			}
		}
		wait := t.poll()
		if subscribed {
			wait = max(wait, taskBackstop)
		}
		timer := time.NewTimer(wait)
		pollNow := false
		select {
		case <-timer.C:
			pollNow = true
		case <-w.signal:
			v.seeAll(w.take())
		case ok := <-agreed:
			agreed = nil
			// What changed before the subscription began is not notified: ask once.
			subscribed, pollNow = ok, true
		case <-ended:
			ended, subscribed = nil, false // polled from now on
		case <-ctx.Done():
			timer.Stop()
			// The caller gave up: so does the server, as far as it can.
			c.cancelTask(ctx, rev, t.TaskID)
			return nil, ctx.Err()
		}
		timer.Stop()
		if pollNow {
			next, err := c.getTask(ctx, rev, t.TaskID)
			if err != nil {
				if ctx.Err() != nil {
					continue // cancelled while polling: the select above says so
				}
				return nil, fmt.Errorf("polling task %s: %w", t.TaskID, err)
			}
			v.see(next)
		}
	}
}

// taskView is what a call that follows a task knows of it: its latest state, and the status
// messages told to the call's progress function (WithProgress), each once, one at a time.
type taskView struct {
	mu       sync.Mutex // held while progress runs: the call's own progress may share it
	t        taskState
	progress func(ProgressNotice)
	told     string // the last status message told
}

// newTaskView follows a task from its handle, and tells its status message.
func newTaskView(ctx context.Context, t taskState) *taskView {
	v := &taskView{t: t}
	v.progress, _ = ctx.Value(progressKey{}).(func(ProgressNotice))
	v.see(t)
	return v
}

// see takes a state of the task, unless it says less than what is known already.
func (v *taskView) see(s taskState) {
	if s.older(&v.t) {
		return
	}
	v.t = s
	if v.progress != nil && s.StatusMessage != "" && s.StatusMessage != v.told {
		v.told = s.StatusMessage
		v.mu.Lock()
		v.progress(ProgressNotice{Message: s.StatusMessage, Status: s.Status})
		v.mu.Unlock()
	}
}

func (v *taskView) seeAll(states []taskState) {
	for _, s := range states {
		v.see(s)
	}
}

// getTask asks the server for a task's state (tasks/get).
func (c *Client) getTask(ctx context.Context, rev revision, id string) (taskState, error) {
	var t taskState
	err := c.call(ctx, rev, methodTasksGet, json.RawMessage(taskIDParams(id)), codecResult("Task", t.decode), nil)
	return t, err
}

// cancelTask asks the server to cancel a task whose caller gave up (tasks/cancel), for a few
// seconds at most.
func (c *Client) cancelTask(ctx context.Context, rev revision, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	c.call(ctx, rev, methodTasksCancel, json.RawMessage(taskIDParams(id)), nil, nil)
}

// answerTask answers the input requests of a task the client has not answered yet.
func (c *Client) answerTask(ctx context.Context, rev revision, t taskState, answered map[string]bool) error {
	responses := inputResponses{}
	for _, in := range t.InputRequests { // by key
		if answered[in.key] {
			continue
		}
		answer, err := c.answer(ctx, in.method, in.params)
		if err != nil {
			return fmt.Errorf("task %s: answering input request %s (%s): %w", t.TaskID, in.key, in.method, err)
		}
		responses[in.key] = answer
		answered[in.key] = true
	}
	if len(responses) == 0 {
		return nil
	}
	return c.call(ctx, rev, methodTasksUpdate, json.RawMessage(taskUpdate(t.TaskID, responses)), nil, nil)
}

// Revision 2025-11-25.

type asTaskKey struct{}

// AsTask returns a context whose tool calls ask the server to run them as tasks where the
// tool allows it (execution.taskSupport "optional"), at revision 2025-11-25, whose client
// decides. A tool that requires it ("required") runs as a task without asking; at
// 2026-07-28 the server decides, and AsTask changes nothing. CallTool returns the task's
// result either way.
func AsTask(ctx context.Context) context.Context { return context.WithValue(ctx, asTaskKey{}, true) }

// taskSupport is what a tool listed at 2025-11-25 says of running as a task
// (execution.taskSupport).
func taskSupportOf(s string) TaskSupport {
	switch s {
	case "required":
		return TaskRequired
	case "optional":
		return TaskOptional
	}
	return TaskNever
}

// augments reports whether a tools/call of a session asks for a task (revision 2025-11-25):
// the server declared task-augmented tools/call, and the tool requires it, or allows it and
// ctx asks for it. The tools are listed first if the client has not seen this one.
func (c *Client) augments(ctx context.Context, name string) (bool, error) {
	info := c.Server()
	if info.Stateless || !info.Capabilities.Tasks {
		return false, nil
	}
	t, err := c.knownTool(ctx, name, false)
	if err != nil || t == nil {
		return false, err
	}
	asked, _ := ctx.Value(asTaskKey{}).(bool)
	return t.task == TaskRequired || t.task == TaskOptional && asked, nil
}

// legacyTaskHandle reads a CreateTaskResult of revision 2025-11-25: {"task": {...}}.
func legacyTaskHandle(raw []byte) (taskState, error) {
	var t taskState
	d := jsonwire.NewDecoder(raw)
	switch t.decodeHandle(d); {
	case d.Failed():
		return taskState{}, fmt.Errorf("the server's answer to a task-augmented call is not a CreateTaskResult:\n%s", d.Summary())
	case t.TaskID == "":
		return taskState{}, fmt.Errorf("the server's answer to a task-augmented call is not a CreateTaskResult (it has no task.taskId): %.200s", raw)
	}
	return t, nil
}

// awaitLegacyTask follows a task of revision 2025-11-25 until it ends, and returns its
// result: tasks/result, which the server answers once the task has ended (the server's
// requests for the task come meanwhile, and the client answers them as any other). The
// call's progress token stays the task's: its notifications/progress reach the context's
// progress function, and so do the status messages of notifications/tasks/status and of
// tasks/get, polled as often as the server asks while tasks/result waits. A caller that
// gives up cancels the task (tasks/cancel), where the server offers it.
func (c *Client) awaitLegacyTask(ctx context.Context, rev revision, t taskState, token []byte, onProgress func([]byte)) ([]byte, error) {
	v := newTaskView(ctx, t)
	// The progress function hears of the call's progress on the goroutine that reads the
	// connection, and of the task's status messages on this one: one at a time.
	if onProgress != nil {
		unlocked := onProgress
		onProgress = func(params []byte) {
			v.mu.Lock()
			defer v.mu.Unlock()
			unlocked(params)
		}
	}
	w, unwatch := c.watchTask(t.TaskID)
	defer unwatch()
	type answer struct {
		raw []byte
		err error
	}
	got := make(chan answer, 1)
	params := taskIDParams(t.TaskID)
	go func() {
		rq := &OutgoingRequest{method: methodTasksResult, rev: rev, id: c.p.newID()}
		raw, err := c.roundTrip(ctx, rq, methodTasksResult, params, token, onProgress)
		got <- answer{raw, err}
	}()
	for {
		var poll <-chan time.Time
		if v.progress != nil && !v.t.Status.Terminal() {
			poll = time.After(v.t.poll()) // for its status messages only: tasks/result ends it
		}
		select {
		case a := <-got:
			v.seeAll(w.take()) // what came before the result, in order
			if a.err != nil && ctx.Err() != nil {
				if c.Server().Capabilities.TasksCancel {
					c.cancelTask(ctx, rev, t.TaskID)
				}
				return nil, ctx.Err()
			}
			if a.err != nil {
				return nil, fmt.Errorf("task %s: %s: %w", t.TaskID, methodTasksResult, a.err)
			}
			return a.raw, nil
		case <-w.signal:
			v.seeAll(w.take())
		case <-poll:
			if next, err := c.getTask(ctx, rev, t.TaskID); err == nil {
				v.see(next)
			}
		}
	}
}
