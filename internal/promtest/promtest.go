// Package promtest runs a real Prometheus for tests (Debian's prometheus package, which
// scripts/test.sh installs; a test without it fails, saying so): it scrapes the targets a
// test gives every second, and the test asks it what it stored through its HTTP API, as a
// dashboard would.
package promtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Prometheus is a running Prometheus.
type Prometheus struct {
	// URL is its HTTP API's and web interface's base URL, http://127.0.0.1:PORT.
	URL string

	cmd      *exec.Cmd
	log      *lockedBuffer
	exited   chan struct{} // closed when the process has exited
	waitErr  error         // cmd.Wait's, once exited is closed
	client   *http.Client
	stopOnce sync.Once
	stopErr  error
}

const (
	startTime = 60 * time.Second // to be ready, on a loaded machine
	stopTime  = 10 * time.Second // to stop after SIGTERM, before it is killed
)

// Start starts Prometheus on a free loopback port with its storage in a directory of the
// test's, scraping each target (a URL such as http://127.0.0.1:8080/metrics) every second
// as a job of its own, job "target0", "target1"..., and returns once it is ready. It is
// stopped when the test ends, or by Stop.
func Start(t testing.TB, targets ...string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus is not installed (apt-get install prometheus; ./scripts/test.sh installs it): %v", err)
	}
	config, err := scrapeConfig(targets)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	configPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 5 { // another process may take the free port before Prometheus does
		var p *Prometheus
		p, err = start(bin, configPath, filepath.Join(dir, "data"))
		if err == nil {
			t.Cleanup(func() {
				if err := p.Stop(); err != nil {
					t.Errorf("stopping Prometheus: %v", err)
				}
			})
			return p
		}
		if err != errPortTaken {
			break
		}
	}
	t.Fatalf("starting Prometheus: %v", err)
	return nil
}

// scrapeConfig is Prometheus's configuration (JSON, which is YAML).
func scrapeConfig(targets []string) ([]byte, error) {
	var jobs []map[string]any
	for i, target := range targets {
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("target %q: not an http or https URL", target)
		}
		job := map[string]any{
			"job_name":       fmt.Sprintf("target%d", i),
			"scheme":         u.Scheme,
			"metrics_path":   u.EscapedPath(),
			"static_configs": []map[string]any{{"targets": []string{u.Host}}},
		}
		if u.RawQuery != "" {
			job["params"] = u.Query()
		}
		jobs = append(jobs, job)
	}
	return json.MarshalIndent(map[string]any{
		"global":         map[string]any{"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
		"scrape_configs": jobs,
	}, "", "  ")
}

var errPortTaken = fmt.Errorf("the port was taken")

func start(bin, config, data string) (*Prometheus, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &Prometheus{
		URL:    "http://" + addr,
		log:    &lockedBuffer{},
		exited: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second},
	}
	p.cmd = exec.Command(bin,
		"--config.file="+config,
		"--storage.tsdb.path="+data,
		"--web.listen-address="+addr,
	)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	for deadline := time.Now().Add(startTime); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.exited:
			if strings.Contains(p.log.String(), "address already in use") {
				return nil, errPortTaken
			}
			return nil, fmt.Errorf("it exited (%v):\n%s", p.waitErr, p.log)
		default:
		}
		if resp, err := p.client.Get(p.URL + "/-/ready"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			<-p.exited
			return nil, fmt.Errorf("not ready within %v:\n%s", startTime, p.log)
		}
	}
}

// Sample is one element of a query's result: a series' labels (its name is __name__, when
// the query keeps it) and its value at the query's time. A scalar result is one Sample
// without labels.
type Sample struct {
	Labels map[string]string
	Time   time.Time
	Value  float64
}

// Query evaluates an instant query (PromQL) now, through /api/v1/query. A result that is not
// a vector or a scalar (a range vector, a string) is an error.
func (p *Prometheus) Query(ctx context.Context, query string) ([]Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/api/v1/query?"+url.Values{"query": {query}}.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var answer struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("query %q: %s answered %s: %v", query, p.URL, bytes.TrimSpace(body), err)
	}
	if answer.Status != "success" {
		return nil, fmt.Errorf("query %q: %s: %s", query, answer.ErrorType, answer.Error)
	}
	switch answer.Data.ResultType {
	case "vector":
		var series []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(answer.Data.Result, &series); err != nil {
			return nil, fmt.Errorf("query %q: %v", query, err)
		}
		samples := make([]Sample, 0, len(series))
		for _, s := range series {
			sample, err := parseSample(s.Value)
			if err != nil {
				return nil, fmt.Errorf("query %q: %v", query, err)
			}
			sample.Labels = s.Metric
			samples = append(samples, sample)
		}
		return samples, nil
	case "scalar":
		var value [2]any
		if err := json.Unmarshal(answer.Data.Result, &value); err != nil {
			return nil, fmt.Errorf("query %q: %v", query, err)
		}
		sample, err := parseSample(value)
		if err != nil {
			return nil, fmt.Errorf("query %q: %v", query, err)
		}
		return []Sample{sample}, nil
	}
	return nil, fmt.Errorf("query %q: a %s result; ask for a vector or a scalar", query, answer.Data.ResultType)
}

// parseSample reads the API's [unix time, "value"] pair.
func parseSample(v [2]any) (Sample, error) {
	ts, ok1 := v[0].(float64)
	text, ok2 := v[1].(string)
	if !ok1 || !ok2 {
		return Sample{}, fmt.Errorf("a sample %v is not [time, \"value\"]", v)
	}
	value, err := strconv.ParseFloat(text, 64) // also "NaN", "+Inf" and "-Inf"
	if err != nil {
		return Sample{}, err
	}
	return Sample{Time: time.UnixMilli(int64(ts * 1000)), Value: value}, nil
}

// WaitForQuery evaluates query until done accepts its result and returns that result, and
// fails the test if it has not within timeout, showing the last result (or error) and the
// state of the scrape targets.
func (p *Prometheus) WaitForQuery(t testing.TB, timeout time.Duration, query string, done func([]Sample) bool) []Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var samples []Sample
	var err error
	for {
		samples, err = p.Query(ctx, query)
		if err == nil && done(samples) {
			return samples
		}
		select {
		case <-ctx.Done():
			targets := p.targets()
			if err != nil {
				t.Fatalf("Prometheus's answer to %s was not as wanted within %v: %v\ntargets: %s", query, timeout, err, targets)
			}
			t.Fatalf("Prometheus's answer to %s was not as wanted within %v: %+v\ntargets: %s", query, timeout, samples, targets)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// targets is the scrape targets' health and last error, for a failure's message.
func (p *Prometheus) targets() string {
	resp, err := p.client.Get(p.URL + "/api/v1/targets")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			ActiveTargets []struct {
				ScrapeURL string `json:"scrapeUrl"`
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, tg := range answer.Data.ActiveTargets {
		fmt.Fprintf(&b, "\n  %s: %s %s", tg.ScrapeURL, tg.Health, tg.LastError)
	}
	return b.String()
}

// Stop stops Prometheus with SIGTERM and waits until it has exited. It is an error if
// Prometheus had exited before, did not exit within 10 s (it is killed then) or exited with
// a failure. Calling Stop again returns the first call's result.
func (p *Prometheus) Stop() error {
	p.stopOnce.Do(func() {
		defer p.client.CloseIdleConnections()
		select {
		case <-p.exited:
			p.stopErr = fmt.Errorf("it had exited before (%v):\n%s", p.waitErr, p.log)
			return
		default:
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if p.waitErr != nil {
				p.stopErr = fmt.Errorf("it exited with %v:\n%s", p.waitErr, p.log)
			}
		case <-time.After(stopTime):
			p.cmd.Process.Kill()
			<-p.exited
			p.stopErr = fmt.Errorf("it did not stop within %v of SIGTERM and was killed:\n%s", stopTime, p.log)
		}
	})
	return p.stopErr
}

// Log is what Prometheus has written on its stdout and stderr.
func (p *Prometheus) Log() string { return p.log.String() }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
