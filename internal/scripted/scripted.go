// Package scripted is an MCP server whose behaviour a test scripts, for the tests of
// mcpgen's client, host and importer against the ways real third-party servers answer: a
// list they do not implement, a list that fails, a refused subscription, a runtime that is
// slow to load. It speaks newline-delimited JSON-RPC by hand, without mcpgen's runtime, so
// that it can do what mcpgen's own server never would.
//
// A test binary serves a script as a process: its TestMain calls Main first, and a server
// configuration runs the binary with Script.Env in its environment. In the same process,
// Serve speaks over any pair of streams (mcp.IOTransport's).
package scripted

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"
)

// Eras a script's server speaks.
const (
	Legacy = "legacy" // initialize and a session (2025-11-25); server/discover is unknown
	Modern = "modern" // server/discover and _meta (2026-07-28); initialize is unknown
	Dual   = "dual"   // both, as mcpgen's own servers
)

// Script is what the server does.
type Script struct {
	Name string `json:"name"`
	Era  string `json:"era"` // Legacy (the default), Modern or Dual
	// StartDelay is how long the server reads nothing after it started: a runtime still
	// loading on a busy machine.
	StartDelay time.Duration `json:"startDelay,omitempty"`
	// Gate, if set, is a file: the server reads nothing until it exists, for a test to hold
	// a server at its start for as long as it likes.
	Gate string `json:"gate,omitempty"`
	// IgnoreUnknown leaves requests for methods the server does not know unanswered, as
	// some servers of the revisions with sessions do before initialize.
	IgnoreUnknown bool `json:"ignoreUnknown,omitempty"`
	// The tools, prompts and resources (URIs) it offers. A kind with none is not declared
	// in the capabilities, unless Declare names it ("tools", "prompts", "resources").
	Tools     []string `json:"tools,omitempty"`
	Prompts   []string `json:"prompts,omitempty"`
	Resources []string `json:"resources,omitempty"`
	Declare   []string `json:"declare,omitempty"`
	// NotFound are methods the server answers with -32601 Method not found, declared or not
	// (resources/templates/list, say, by a server that declares resources).
	NotFound []string `json:"notFound,omitempty"`
	// Fail are methods the server answers with an internal error (-32603) of this message
	// (resources/list: "no database", say).
	Fail map[string]string `json:"fail,omitempty"`
	// RefuseListen is the message of the error (-32000) that answers subscriptions/listen
	// ("Subscription limit reached"); "" to accept subscriptions (Modern and Dual).
	RefuseListen string `json:"refuseListen,omitempty"`
	// TaskSupport makes tools run as tasks, by name: "required" or "optional". A Legacy
	// server speaks 2025-11-25's tasks: it declares task-augmented tools/call, lists the
	// tools with execution.taskSupport, answers a call that asks for a task (params.task)
	// with a CreateTaskResult, one that does not with -32601 when the tool requires it, and
	// answers tasks/result (after a notifications/tasks/status and, if the call asked for
	// progress, a notifications/progress) with the call's result. A Modern server declares
	// the tasks extension and answers a call with a task handle (resultType "task"), and
	// tasks/get with the task completed.
	TaskSupport map[string]string `json:"taskSupport,omitempty"`
	// Answers are results as they are sent, by method, or by method, a space and the
	// cursor of the page asked for ("tools/list 2"): for what a script cannot say otherwise.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	// Stderr is written to stderr when the server starts.
	Stderr string `json:"stderr,omitempty"`

	// In the same process: Seen is told the method of every request the server reads, and
	// Answer, if it returns a result, answers a request with it.
	Seen   func(method string)                                         `json:"-"`
	Answer func(method string, params json.RawMessage) json.RawMessage `json:"-"`
}

// EnvVar is the environment variable that holds a process's script.
const EnvVar = "MCPGEN_SCRIPTED_SERVER"

// Env is the NAME=value that makes a test binary (whose TestMain calls Main) serve s.
func (s Script) Env() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return EnvVar + "=" + string(b)
}

// Main serves the script of the environment over stdin and stdout, and exits, if there is
// one; otherwise it returns at once. A test binary's TestMain calls it first.
func Main() {
	env := os.Getenv(EnvVar)
	if env == "" {
		return
	}
	var s Script
	if err := json.Unmarshal([]byte(env), &s); err != nil {
		fmt.Fprintln(os.Stderr, "scripted:", err)
		os.Exit(2)
	}
	if err := Serve(os.Stdin, os.Stdout, s); err != nil {
		fmt.Fprintln(os.Stderr, "scripted:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Serve reads requests from r and writes the script's answers to w until r ends.
func Serve(r io.Reader, w io.Writer, s Script) error {
	if s.Era == "" {
		s.Era = Legacy
	}
	if s.Stderr != "" {
		fmt.Fprintln(os.Stderr, s.Stderr)
	}
	time.Sleep(s.StartDelay)
	for s.Gate != "" {
		if _, err := os.Stat(s.Gate); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv := &server{s: s, w: w}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if err := srv.handle(line); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

type server struct {
	s     Script
	wmu   sync.Mutex
	w     io.Writer
	tasks map[string]json.RawMessage // the progress token of each task's call, by id
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (srv *server) handle(line []byte) error {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return srv.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
	}
	if req.ID == nil || req.Method == "" {
		return nil // a notification, or a response
	}
	if srv.s.Seen != nil {
		srv.s.Seen(req.Method)
	}
	result, code, message := srv.answer(req)
	switch {
	case code == 0 && result == nil:
		return nil // no answer
	case code != 0:
		return srv.write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": code, "message": message}})
	}
	return srv.write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// answer is a request's result, or its error's code and message; neither leaves it
// unanswered.
func (srv *server) answer(req request) (any, int, string) {
	s, method := &srv.s, req.Method
	if s.Answer != nil {
		if res := s.Answer(method, req.Params); res != nil {
			return res, 0, ""
		}
	}
	var params struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(req.Params, &params)
	key := method
	if params.Cursor != "" {
		key += " " + params.Cursor
	}
	if res, ok := s.Answers[key]; ok {
		return res, 0, ""
	}
	if slices.Contains(s.NotFound, method) {
		return nil, -32601, "Method not found"
	}
	if msg, ok := s.Fail[method]; ok {
		return nil, -32603, msg
	}
	modern, legacy := s.Era != Legacy, s.Era != Modern
	switch {
	case method == "initialize" && legacy:
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": srv.capabilities(),
			"serverInfo": map[string]any{"name": s.Name, "version": "1.0.0"}}, 0, ""
	case method == "server/discover" && modern:
		versions := []string{"2026-07-28"}
		if legacy {
			versions = append(versions, "2025-11-25")
		}
		return map[string]any{"supportedVersions": versions, "capabilities": srv.capabilities(),
			"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": s.Name, "version": "1.0.0"}}}, 0, ""
	case method == "ping" && legacy:
		return map[string]any{}, 0, ""
	case method == "subscriptions/listen" && modern:
		if s.RefuseListen != "" {
			return nil, -32000, s.RefuseListen
		}
		srv.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
			"params": map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": req.ID}}})
		return nil, 0, "" // open until the client goes
	case method == "tools/list":
		tools := []any{}
		for _, name := range s.Tools {
			tool := map[string]any{"name": name, "description": "The tool " + name + ".", "inputSchema": map[string]any{"type": "object"}}
			if support := s.TaskSupport[name]; support != "" && s.Era != Modern {
				tool["execution"] = map[string]any{"taskSupport": support}
			}
			tools = append(tools, tool)
		}
		return map[string]any{"tools": tools}, 0, ""
	case method == "tools/call":
		var call struct {
			Name string          `json:"name"`
			Task json.RawMessage `json:"task"`
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(req.Params, &call)
		switch support := s.TaskSupport[call.Name]; {
		case support != "" && s.Era == Modern:
			return srv.newTask(call.Meta.ProgressToken, true), 0, ""
		case support != "" && call.Task != nil:
			return map[string]any{"task": srv.newTask(call.Meta.ProgressToken, false)}, 0, ""
		case support == "required":
			return nil, -32601, "Tool " + call.Name + " requires task augmentation (taskSupport: 'required')"
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "called"}}}, 0, ""
	case method == "tasks/get" || method == "tasks/result" || method == "tasks/cancel":
		var p struct {
			TaskID string `json:"taskId"`
		}
		json.Unmarshal(req.Params, &p)
		token, ok := srv.tasks[p.TaskID]
		switch {
		case !ok:
			return nil, -32602, "Failed to retrieve task: Task not found"
		case method == "tasks/cancel":
			return task(p.TaskID, "cancelled", "Cancelled by the client.", s.Era == Modern), 0, ""
		case method == "tasks/get" && s.Era == Modern:
			t := task(p.TaskID, "completed", "Done.", true)
			t["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "called as a task"}}}
			return t, 0, ""
		case method == "tasks/get":
			return task(p.TaskID, "working", "Working.", false), 0, ""
		}
		srv.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task(p.TaskID, "working", "Halfway there.", false)})
		if len(token) > 0 {
			srv.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": token, "progress": 1, "total": 2, "message": "one of two"}})
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "called as a task"}},
			"_meta": map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": p.TaskID}}}, 0, ""
	case method == "prompts/list":
		prompts := []any{}
		for _, name := range s.Prompts {
			prompts = append(prompts, map[string]any{"name": name})
		}
		return map[string]any{"prompts": prompts}, 0, ""
	case method == "resources/list":
		resources := []any{}
		for _, uri := range s.Resources {
			resources = append(resources, map[string]any{"uri": uri, "name": uri})
		}
		return map[string]any{"resources": resources}, 0, ""
	case method == "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{}}, 0, ""
	}
	if s.IgnoreUnknown {
		return nil, 0, ""
	}
	return nil, -32601, "Method not found"
}

// newTask makes a task of a call, and returns it as a task handle (modern) or a Task.
func (srv *server) newTask(progressToken json.RawMessage, modern bool) map[string]any {
	if srv.tasks == nil {
		srv.tasks = map[string]json.RawMessage{}
	}
	id := fmt.Sprintf("task-%d", len(srv.tasks)+1)
	srv.tasks[id] = progressToken
	t := task(id, "working", "Started.", modern)
	if modern {
		t["resultType"] = "task"
	}
	return t
}

// task is a task in the words of the server's revision.
func task(id, status, message string, modern bool) map[string]any {
	t := map[string]any{"taskId": id, "status": status, "statusMessage": message,
		"createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": time.Now().UTC().Format(time.RFC3339Nano)}
	if modern {
		t["ttlMs"], t["pollIntervalMs"] = 60000, 50
	} else {
		t["ttl"], t["pollInterval"] = 60000, 50
	}
	return t
}

func (srv *server) capabilities() map[string]any {
	caps := map[string]any{}
	if len(srv.s.TaskSupport) > 0 {
		if srv.s.Era == Modern {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
		} else {
			caps["tasks"] = map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		}
	}
	declared := func(kind string, items []string) bool { return len(items) > 0 || slices.Contains(srv.s.Declare, kind) }
	if declared("tools", srv.s.Tools) {
		caps["tools"] = map[string]any{"listChanged": true}
	}
	if declared("prompts", srv.s.Prompts) {
		caps["prompts"] = map[string]any{}
	}
	if declared("resources", srv.s.Resources) {
		caps["resources"] = map[string]any{}
	}
	return caps
}

func (srv *server) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	srv.wmu.Lock()
	defer srv.wmu.Unlock()
	_, err = srv.w.Write(append(b, '\n'))
	return err
}
