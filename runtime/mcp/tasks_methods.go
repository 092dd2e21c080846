package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

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

// taskParams reads the taskId of a tasks/ request, after checking that the client declared
// the extension.
func taskParams(r *Request, params []byte) (id string, responses map[string]json.RawMessage, err *jsonrpc.Error) {
	if !r.ClientCapabilities().Tasks {
		return "", nil, missingTasksCapability
	}
	d := jsonwire.NewDecoder(params)
	if params == nil || d.Peek() != jsonwire.Object {
		return "", nil, invalidParams("%s: params must be an object with a taskId string", r.Method())
	}
	hasID := false
	for key := range d.Members {
		switch string(key) {
		case "taskId":
			id, hasID = d.String()
		case "inputResponses":
			// Each answer as it came, whatever its shape: the task's body reads it, and
			// says in its result what is wrong with it.
			if !d.Null() && d.Expect(jsonwire.Object) {
				responses = map[string]json.RawMessage{}
				for k := range d.Members {
					responses[string(k)] = d.RawCopy()
				}
			}
		default:
			d.Skip()
		}
	}
	switch d.Finish(); {
	case d.Failed():
		return "", nil, invalidParams("%s: %s", r.Method(), d.Summary())
	case !hasID:
		return "", nil, invalidParams("%s: taskId is required", r.Method())
	}
	return id, responses, nil
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
	var rec *TaskRecord
	var err error
	if tk := r.tk; tk != nil && (tk.task != nil || tk.taskErr != nil) && sameBytes(params, r.msg.Params) {
		rec, err = tk.task, tk.taskErr // the door read it, for its tool's scopes
	} else {
		rec, err = tr.store.Get(ctx, id)
	}
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
		before := t.Size()
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
			if size := t.Size(); size > before && size > tr.maxBytes {
				return invalidParams("tasks/update: inputResponses: with these answers the task would keep %d bytes, more than the %d it may keep", size, tr.maxBytes)
			}
			if t.Status == TaskInputRequired && len(t.InputRequests) == 0 {
				t.Status = TaskWorking
			}
			t.UpdatedAt = time.Now().UTC()
		}
		return nil
	})
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return nil, rpcErr
	case errors.Is(err, ErrTaskCallerFull):
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: your tasks keep as many bytes as the server keeps for one caller: no room for these answers until some of them expire")
	case errors.Is(err, ErrTaskStoreFull):
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the server's task store is full: it has no room for these answers until other tasks expire")
	case err != nil:
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
