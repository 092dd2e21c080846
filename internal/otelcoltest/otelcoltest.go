// Package otelcoltest runs a real OpenTelemetry Collector for tests: e2e/otelcol, the core
// collector with its OTLP receiver and the contrib file exporter, built from the published
// Go modules (see Binary) and started as a process of the test's own. It receives OTLP over
// HTTP on a loopback port and writes what it receives as OTLP JSON, which the package reads
// back into Spans and Metrics.
//
// The collector's modules are not mcpgen's dependencies: e2e/otelcol is a module of its
// own, built with go build in its directory.
package otelcoltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Collector is a running collector.
type Collector struct {
	// Endpoint is the OTLP/HTTP receiver's base URL, http://127.0.0.1:PORT: the value for
	// OTEL_EXPORTER_OTLP_ENDPOINT (exporters add /v1/traces and /v1/metrics to it).
	Endpoint string

	tracesPath, metricsPath string
	cmd                     *exec.Cmd
	log                     *lockedBuffer
	exited                  chan struct{} // closed when the process has exited
	waitErr                 error         // cmd.Wait's, once exited is closed
	stopOnce                sync.Once
	stopErr                 error
}

const (
	readyLine   = "Everything is ready"
	startTime   = 60 * time.Second // to start, on a loaded machine
	stopTime    = 10 * time.Second // to stop after SIGTERM, before it is killed
	flushPeriod = 50 * time.Millisecond
)

// Start builds the collector if needed (see Binary) and starts it with an OTLP/HTTP
// receiver on a free loopback port and its traces and metrics written to files in a
// directory of the test's, flushed every 50 ms. It returns once the collector is ready to
// receive; it is stopped when the test ends, or by Stop.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	var err error
	for range 5 { // another process may take the free port before the collector does
		var c *Collector
		c, err = start(bin, dir)
		if err == nil {
			t.Cleanup(func() {
				if err := c.Stop(); err != nil {
					t.Errorf("stopping the collector: %v", err)
				}
			})
			return c
		}
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	t.Fatalf("starting the collector: %v", err)
	return nil
}

var errPortTaken = errors.New("the port was taken")

// portTakenMessage is in the collector's log when it could not listen on its port.
const portTakenMessage = "address already in use"

func start(bin, dir string) (*Collector, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c := &Collector{
		Endpoint:    fmt.Sprintf("http://127.0.0.1:%d", port),
		tracesPath:  filepath.Join(dir, "traces.jsonl"),
		metricsPath: filepath.Join(dir, "metrics.jsonl"),
		log:         &lockedBuffer{awaited: readyLine, seen: make(chan struct{})},
		exited:      make(chan struct{}),
	}
	config := filepath.Join(dir, "config.json")
	if err := os.WriteFile(config, c.config(port), 0o644); err != nil {
		return nil, err
	}
	c.cmd = exec.Command(bin, "--config=file:"+config)
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	// Ready the moment it says so, so that a test's Stop right after Start finds the
	// collector as early as anyone can (e2e/otelcol must then take SIGTERM already).
	select {
	case <-c.log.seen:
		return c, nil
	case <-c.exited:
		if strings.Contains(c.log.String(), portTakenMessage) {
			return nil, errPortTaken
		}
		return nil, fmt.Errorf("it exited (%v):\n%s", c.waitErr, c.log)
	case <-time.After(startTime):
		c.cmd.Process.Kill()
		<-c.exited
		return nil, fmt.Errorf("not ready within %v:\n%s", startTime, c.log)
	}
}

// config is the collector's configuration (JSON, which is YAML): OTLP over HTTP in, a file
// exporter for each signal out, and no telemetry of its own (whose metrics would listen on
// port 8888).
func (c *Collector) config(port int) []byte {
	file := func(path string) map[string]any {
		return map[string]any{"path": path, "format": "json", "flush_interval": flushPeriod.String()}
	}
	cfg := map[string]any{
		"receivers": map[string]any{
			"otlp": map[string]any{"protocols": map[string]any{"http": map[string]any{"endpoint": fmt.Sprintf("127.0.0.1:%d", port)}}},
		},
		"exporters": map[string]any{
			"file/traces":  file(c.tracesPath),
			"file/metrics": file(c.metricsPath),
		},
		"service": map[string]any{
			"telemetry": map[string]any{"metrics": map[string]any{"level": "none"}},
			"pipelines": map[string]any{
				"traces":  map[string]any{"receivers": []string{"otlp"}, "exporters": []string{"file/traces"}},
				"metrics": map[string]any{"receivers": []string{"otlp"}, "exporters": []string{"file/metrics"}},
			},
		},
	}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	return data
}

// Env is what a process under test needs in its environment to export to the collector
// soon after it records: the endpoint, OTLP over HTTP, spans sent every 100 ms and metrics
// every 200 ms (the SDK's defaults are 5 s and 60 s).
func (c *Collector) Env() []string {
	return []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.Endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_BSP_SCHEDULE_DELAY=100",
		"OTEL_METRIC_EXPORT_INTERVAL=200",
	}
}

// Spans are the spans the collector has written so far, in the order received.
func (c *Collector) Spans() ([]Span, error) {
	data, err := readIfExists(c.tracesPath)
	if err != nil {
		return nil, err
	}
	return ParseTraces(data)
}

// Metrics are the metrics the collector has written so far, export after export.
func (c *Collector) Metrics() ([]Metric, error) {
	data, err := readIfExists(c.metricsPath)
	if err != nil {
		return nil, err
	}
	return ParseMetrics(data)
}

// WaitForSpans returns the spans written so far once done accepts them, and fails the test
// if it has not within timeout, showing the spans it had.
func (c *Collector) WaitForSpans(t testing.TB, timeout time.Duration, done func([]Span) bool) []Span {
	t.Helper()
	spans, ok, err := waitFor(c.Spans, done, timeout)
	if err != nil {
		t.Fatalf("reading the collector's spans: %v", err)
	}
	if !ok {
		var list strings.Builder
		for _, s := range spans {
			fmt.Fprintf(&list, "\n  %s (%s, trace %s, span %s, parent %q, status %s) %v", s.Name, s.Kind, s.TraceID, s.SpanID, s.ParentSpanID, s.Status.Code, s.Attributes)
		}
		t.Fatalf("the collector did not have the spans wanted within %v; it had %d:%s\ncollector's log:\n%s", timeout, len(spans), list.String(), c.log)
	}
	return spans
}

// WaitForMetrics is WaitForSpans for metrics.
func (c *Collector) WaitForMetrics(t testing.TB, timeout time.Duration, done func([]Metric) bool) []Metric {
	t.Helper()
	metrics, ok, err := waitFor(c.Metrics, done, timeout)
	if err != nil {
		t.Fatalf("reading the collector's metrics: %v", err)
	}
	if !ok {
		var list strings.Builder
		for _, m := range metrics {
			fmt.Fprintf(&list, "\n  %s (%s %s, %d points)", m.Name, m.Temporality, m.Type, len(m.Points))
		}
		t.Fatalf("the collector did not have the metrics wanted within %v; it had %d:%s\ncollector's log:\n%s", timeout, len(metrics), list.String(), c.log)
	}
	return metrics
}

func waitFor[T any](read func() ([]T, error), done func([]T) bool, timeout time.Duration) ([]T, bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		items, err := read()
		if err != nil {
			return nil, false, err
		}
		if done(items) {
			return items, true, nil
		}
		if time.Now().After(deadline) {
			return items, false, nil
		}
		time.Sleep(flushPeriod)
	}
}

// Stop stops the collector as an operator would, with SIGTERM, which makes it flush its
// files, and waits until it has exited. It is an error if the collector had exited before,
// did not exit within 10 s (it is killed then) or exited with a failure. Calling Stop again
// returns the first call's result.
func (c *Collector) Stop() error {
	c.stopOnce.Do(func() {
		select {
		case <-c.exited:
			c.stopErr = fmt.Errorf("it had exited before (%v):\n%s", c.waitErr, c.log)
			return
		default:
		}
		c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
			if c.waitErr != nil {
				c.stopErr = fmt.Errorf("it exited with %v:\n%s", c.waitErr, c.log)
			}
		case <-time.After(stopTime):
			c.cmd.Process.Kill()
			<-c.exited
			c.stopErr = fmt.Errorf("it did not stop within %v of SIGTERM and was killed:\n%s", stopTime, c.log)
		}
	})
	return c.stopErr
}

// Log is what the collector has written on its stdout and stderr.
func (c *Collector) Log() string { return c.log.String() }

func readIfExists(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // nothing exported yet
	}
	return data, err
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// lockedBuffer is the collector's output. When it first holds awaited, seen is closed.
type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	awaited string
	seen    chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	if l.awaited != "" && bytes.Contains(l.b.Bytes(), []byte(l.awaited)) {
		close(l.seen)
		l.awaited = ""
	}
	return n, err
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
