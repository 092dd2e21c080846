package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// wake tells a task this process runs that an answer may have come: tasks/update here, or
// the store's change feed (TaskChanges) for an answer through another replica.
func (tr *taskRunner) wake(id string) {
	tr.mu.Lock()
	rt := tr.running[id]
	tr.mu.Unlock()
	if rt != nil {
		rt.wake()
	}
}

// statusMessage sets a running task's statusMessage (Progress in a task), cut to what the
// task may keep. With the store full, the task keeps the message it had.
func (tr *taskRunner) statusMessage(ctx context.Context, rt *runningTask, msg string) {
	tr.update(ctx, rt.id, func(t *TaskRecord) error {
		if t.Status.Terminal() || t.StatusMessage == msg {
			return nil
		}
		t.StatusMessage, t.UpdatedAt = msg, time.Now().UTC()
		if over := t.Size() - tr.maxBytes; over > 0 {
			t.StatusMessage = truncateUTF8(msg, len(msg)-over)
		}
		return nil
	})
}

// truncateUTF8 shortens s to at most n bytes, whole characters, marked with an ellipsis.
func truncateUTF8(s string, n int) string {
	const ellipsis = "…"
	if len(s) <= n {
		return s
	}
	n -= len(ellipsis)
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}

// taskClient is the client of a task's body, as the body sees it: what the request that
// created the task said of the client, and questions that wait for tasks/update.
type taskClient struct {
	tr   *taskRunner
	rt   *runningTask
	rev  revision
	caps ClientCapabilities
	who  Implementation
}

func (tc *taskClient) protocolVersion() string          { return tc.rev.String() }
func (tc *taskClient) revision() revision               { return tc.rev }
func (tc *taskClient) capabilities() ClientCapabilities { return tc.caps }
func (tc *taskClient) info() Implementation             { return tc.who }
func (tc *taskClient) logLevel() LogLevel               { return "" } // no log messages in tasks
func (tc *taskClient) lacking(string, string)           {}
func (tc *taskClient) describe(*Message)                {} // a task's body sends no messages

func (tc *taskClient) respond(r *Request, m *jsonrpc.Message, result []byte, err *jsonrpc.Error) []byte {
	return nil // a task's body is not answered: its end is stored (finish)
}

// A task's body sends no messages: progress becomes its statusMessage, log messages are
// not part of tasks.
func (tc *taskClient) Write(context.Context, []byte) error { return nil }

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
		if t.Size() > tc.tr.maxBytes {
			return fmt.Errorf("mcp: the %s request is %d bytes: with it, the task would keep %d bytes, more than the %d a task may keep (TaskOptions.MaxTaskBytes)", method, len(question), t.Size(), tc.tr.maxBytes)
		}
		t.Status, t.UpdatedAt = TaskInputRequired, time.Now().UTC()
		return nil
	}); err != nil {
		return nil, err
	}
	tc.tr.watchOthers() // an answer through another replica wakes the wait
	for {
		// Looked at first, taken only once there: a wait writes nothing to the store. The
		// channel is taken before the look, so that an answer that comes after it wakes
		// the wait.
		changed := rt.changes()
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
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

var errTaskOver = errors.New("mcp: the task is over (cancelled, or the server stopped)")
