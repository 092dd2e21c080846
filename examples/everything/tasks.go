package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Fixtures of the tasks extension's conformance scenarios (revision 2026-07-28). A tool
// annotated with task runs as a task when the client's request declares the extension, and
// as a plain call otherwise; the bodies are plain Go either way.

// GreetInput names whom to greet.
type GreetInput struct {
	// Whom to greet.
	Name string `json:"name"`
}

// Greet says hello at once: it never runs as a task.
//
//mcp:tool greet readonly
func Greet(in GreetInput) string { return "Hello, " + in.Name + "!" }

// ComputeInput says how long to compute.
type ComputeInput struct {
	// How many seconds the computation takes.
	Seconds int `json:"seconds" jsonschema:"minimum=0,maximum=3600"`
	// A label for the computation.
	Label string `json:"label,omitempty"`
}

// SlowCompute computes for the given number of seconds, reporting its progress each second,
// and stops as soon as it is cancelled.
//
//mcp:tool slow_compute task readonly
func SlowCompute(ctx context.Context, in ComputeInput) (string, error) {
	for i := range in.Seconds {
		mcp.Progress(ctx, float64(i), float64(in.Seconds), fmt.Sprintf("Computing %q: %d of %d seconds.", in.Label, i, in.Seconds))
		if err := sleep(ctx, time.Second); err != nil {
			return "", fmt.Errorf("computation %q cancelled at %d/%d: %w", in.Label, i, in.Seconds, err)
		}
	}
	return fmt.Sprintf("Computation %q completed after %d seconds. Result: 42.", in.Label, in.Seconds), nil
}

// FailingJob works for a second, then fails: the task completes with an error result.
//
//mcp:tool failing_job task=required
func FailingJob(ctx context.Context) mcp.CallToolResult {
	text := "the job failed: the upstream service refused the request"
	if err := sleep(ctx, time.Second); err != nil {
		text = "the job was stopped: " + err.Error()
	}
	return mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: text}}, IsError: true}
}

// ProtocolErrorJob works for half a second, then breaks down (it panics): the task fails
// with a JSON-RPC error.
//
//mcp:tool protocol_error_job task
func ProtocolErrorJob(ctx context.Context) string {
	if err := sleep(ctx, 500*time.Millisecond); err != nil {
		return "stopped before it broke down: " + err.Error()
	}
	panic("protocol_error_job breaks down on purpose")
}

// DeleteInput names a file.
type DeleteInput struct {
	// The file to delete.
	Filename string `json:"filename"`
}

// DeleteForm asks to confirm a deletion.
type DeleteForm struct {
	// Whether to delete the file.
	Confirm bool `json:"confirm"`
}

// ConfirmDelete asks the user to confirm before it deletes a file (nothing is deleted: it
// says what it would have done).
//
//mcp:tool confirm_delete task destructive
func ConfirmDelete(ctx context.Context, in DeleteInput) (string, error) {
	form, action, err := mcp.Elicit[DeleteForm](ctx, "Delete "+in.Filename+"?")
	if err != nil {
		return "", err
	}
	if action != mcp.Accept || !form.Confirm {
		return fmt.Sprintf("kept '%s'", in.Filename), nil
	}
	return fmt.Sprintf("deleted '%s'", in.Filename), nil
}

// MultiInput asks for a name and a confirmation at once, and goes on when both are answered.
//
//mcp:tool multi_input task
func MultiInput(ctx context.Context) (string, error) {
	type answer struct {
		text string
		err  error
	}
	name, confirm := make(chan answer, 1), make(chan answer, 1)
	go func() {
		form, _, err := mcp.Elicit[NameForm](mcp.WithInputKey(ctx, "name"), "What is your name?")
		name <- answer{form.Name, err}
	}()
	go func() {
		form, _, err := mcp.Elicit[DeleteForm](mcp.WithInputKey(ctx, "confirm"), "Do you confirm?")
		confirm <- answer{fmt.Sprint(form.Confirm), err}
	}()
	n, c := <-name, <-confirm
	if err := errors.Join(n.err, c.err); err != nil {
		return "", err
	}
	return fmt.Sprintf("name %s, confirmed %s", n.text, c.text), nil
}

// ToolWithTask asks the user's name first, in the request itself (a multi round-trip
// request), and only then becomes a task that computes the greeting.
//
//mcp:tool test_tool_with_task task=deferred
func ToolWithTask(ctx context.Context) (string, error) {
	name, err := askName(ctx)
	if err != nil {
		return "", err
	}
	if ctx, err = mcp.StartTask(ctx); err != nil {
		return "", err
	}
	if err := sleep(ctx, 100*time.Millisecond); err != nil {
		return "", err
	}
	return "Hello, " + name + "! (computed in task)", nil
}
