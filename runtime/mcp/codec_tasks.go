package mcp

import (
	"maps"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of a task (see codec_content.go for the convention): a Task in tasks/get's
// result, a CreateTaskResult (revision 2026-07-28's task handle, or 2025-11-25's
// {"task": ...}) and the params of notifications/tasks (notifications/tasks/status at
// 2025-11-25). The server writes a task's members from its TaskRecord (writeTask); the
// client reads them into a taskState.

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

// taskState is what tasks/get, a task handle or a notification says of a task, in either
// revision's words (pollIntervalMs, or pollInterval at 2025-11-25).
type taskState struct {
	TaskID         string
	Status         TaskStatus
	StatusMessage  string
	LastUpdatedAt  string
	PollIntervalMs *int64
	PollInterval   *int64
	Result         []byte // the CallToolResult of a completed task, raw
	Error          *jsonrpc.Error
	InputRequests  inputRequestList // what an input_required task asks, by key
}

// decode reads a task; null reads as absent, members it does not know are skipped.
func (t *taskState) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "taskId":
			t.TaskID = readString(d)
		case "status":
			t.Status = TaskStatus(readString(d))
		case "statusMessage":
			t.StatusMessage = readString(d)
		case "lastUpdatedAt":
			t.LastUpdatedAt = readString(d)
		case "pollIntervalMs":
			t.PollIntervalMs = readMillis(d)
		case "pollInterval":
			t.PollInterval = readMillis(d)
		case "result":
			if !d.Null() {
				t.Result = d.RawCopy()
			}
		case "error":
			if !d.Null() {
				t.Error = readErrorObject(d)
			}
		case "inputRequests":
			if !d.Null() {
				t.InputRequests.decode(d)
			}
		default:
			d.Skip()
		}
	}
}

// readMillis reads a count of milliseconds, or null.
func readMillis(d *jsonwire.Decoder) *int64 {
	if d.Null() {
		return nil
	}
	if n, ok := d.Int(); ok {
		return &n
	}
	return nil
}

// readErrorObject reads a JSON-RPC error object (a failed task's error): its data as it came.
func readErrorObject(d *jsonwire.Decoder) *jsonrpc.Error {
	e := &jsonrpc.Error{}
	for key := range d.Members {
		switch string(key) {
		case "code":
			if n, ok := d.Int(); ok {
				e.Code = int(n)
			}
		case "message":
			e.Message = readString(d)
		case "data":
			if !d.Null() {
				e.Data = d.RawCopy()
			}
		default:
			d.Skip()
		}
	}
	return e
}

// decodeHandle reads revision 2025-11-25's CreateTaskResult: {"task": {...}}.
func (t *taskState) decodeHandle(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch {
		case string(key) != "task":
			d.Skip()
		case !d.Null():
			t.decode(d)
		}
	}
}

// taskUpdate writes the params of tasks/update: the client's answers to a task's input
// requests.
func taskUpdate(id string, responses inputResponses) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("taskId")
	e.String(id)
	e.Key("inputResponses")
	responses.encode(&e)
	e.ObjectEnd()
	return e.Bytes()
}

// taskIDParams writes the params of tasks/get, tasks/result and tasks/cancel.
func taskIDParams(id string) []byte {
	return append(jsonwire.AppendString([]byte(`{"taskId":`), id), '}')
}

// acknowledgedTasks reads the task ids of a subscription's acknowledgement
// (notifications/subscriptions/acknowledged): notifications.taskIds.
func acknowledgedTasks(params []byte) []string {
	var ids []string
	d := jsonwire.NewDecoder(params)
	for key := range d.Members {
		switch {
		case string(key) != "notifications":
			d.Skip()
		case !d.Null():
			for key := range d.Members {
				switch {
				case string(key) != "taskIds":
					d.Skip()
				case !d.Null():
					for range d.Elements {
						ids = append(ids, readString(d))
					}
				}
			}
		}
	}
	return ids
}
