package main_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The driver, built, against the floor and examples/weather over both transports (and
// examples/weather stateless over HTTP): every run reports the calls it made and the
// server's CPU time; a server whose answers are not tool results fails the run.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/mcpgen/mcpgen/bench/load",
		"github.com/mcpgen/mcpgen/bench/servers/floor",
		"github.com/mcpgen/mcpgen/examples/weather")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	load := filepath.Join(dir, "load")
	for _, server := range []string{"floor", "weather"} {
		for _, mode := range []string{"stdio", "http", "http -stateless"} {
			if server == "floor" && mode == "http -stateless" {
				continue // the floor answers with a canned session's result
			}
			t.Run(server+"/"+mode, func(t *testing.T) {
				args := []string{"-calls", "500", "-warmup", "20", "-inflight", "4", "-json", "-name", server}
				transport, revision := mode, "2025-06-18"
				if mode != "stdio" {
					args = append(args, "-http")
					transport = "http"
				}
				if strings.HasSuffix(mode, "-stateless") {
					args = append(args, "-stateless")
					revision = "2026-07-28"
				}
				out, err := exec.Command(load, append(args, "--", filepath.Join(dir, server))...).Output()
				if err != nil {
					t.Fatalf("load: %v\n%s", err, stderr(err))
				}
				var res struct {
					Name, Transport, Revision     string
					Calls, InFlight               int
					CallsPerSec, CPUPerCallMicros float64
				}
				if err := json.Unmarshal(out, &res); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if res.Name != server || res.Transport != transport || res.Revision != revision || res.Calls != 500 || res.InFlight != 4 {
					t.Errorf("reported %+v", res)
				}
				if res.CallsPerSec <= 0 || res.CPUPerCallMicros <= 0 || res.CPUPerCallMicros > 100000 {
					t.Errorf("figures out of range: %+v", res)
				}
			})
		}
	}
	t.Run("not a server", func(t *testing.T) {
		// cat echoes the requests: the driver must see that they are no tool results.
		out, err := exec.Command(load, "-calls", "10", "-warmup", "0", "--", "cat").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "initialize") {
			t.Errorf("load against cat: %v\n%s", err, out)
		}
	})
}

func stderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
