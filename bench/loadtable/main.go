// Command loadtable reads the results of load -json runs on stdin, one JSON object per line,
// and prints them as one table: for each server, the median over its runs of calls per
// second and of server CPU per call, over stdio and over HTTP, and then how mcpgen compares
// with the floor (CPU per call), with its own variants (servers named "mcpgen ...", such as
// "mcpgen traced": the difference in CPU per call) and with the fastest other implementation
// (calls per second).
//
// The medians make a few disturbed runs of a shared machine harmless; scripts/bench.sh runs
// every server several times, in turns, so that a slow minute hurts all of them alike.
//
// With -paired BASE it reads runs of two servers, "mcpgen" and BASE, made in turns (run by
// run: one of each is a pair), and reports, for each transport and revision, the median of
// the per-pair ratios mcpgen / BASE of server CPU per call and of calls per second, and in how
// many pairs each went against mcpgen, with a sign test's p (see paired.go).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// result is what load -json prints.
type result struct {
	Name             string  `json:"name"`
	Transport        string  `json:"transport"`
	Revision         string  `json:"revision"`
	CallsPerSec      float64 `json:"callsPerSec"`
	CPUPerCallMicros float64 `json:"cpuPerCallMicros"`
}

// The servers with a role in the comparison; others are listed, but compared with nothing.
const (
	floorName  = "floor"
	mcpgenName = "mcpgen"
)

var transports = []string{"stdio", "http"}

func main() {
	base := flag.String("paired", "", "compare mcpgen with this server, run by run in pairs, instead of printing the table")
	flag.Parse()
	var err error
	if *base != "" {
		err = paired(os.Stdin, os.Stdout, mcpgenName, *base)
	} else {
		err = run(os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtable:", err)
		os.Exit(1)
	}
}

// figures are one server's medians over one transport.
type figures struct {
	callsPerSec  float64
	cpuPerCallUS float64
}

// read reads load -json's results, one a line, in order.
func read(in io.Reader) ([]result, error) {
	var rs []result
	sc := bufio.NewScanner(in)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var r result
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results on stdin")
	}
	return rs, nil
}

func run(in io.Reader, out io.Writer) error {
	type key struct{ name, transport string }
	runs := map[key][]result{}
	var names []string // in the order first seen
	all, err := read(in)
	if err != nil {
		return err
	}
	for _, r := range all {
		k := key{r.Name, r.Transport}
		if !slices.Contains(names, r.Name) {
			names = append(names, r.Name)
		}
		runs[k] = append(runs[k], r)
	}

	med := map[key]figures{}
	for k, rs := range runs {
		med[k] = figures{
			callsPerSec:  median(rs, func(r result) float64 { return r.CallsPerSec }),
			cpuPerCallUS: median(rs, func(r result) float64 { return r.CPUPerCallMicros }),
		}
	}

	fmt.Fprintf(out, "| | stdio calls/s | stdio server CPU/call | HTTP calls/s | HTTP server CPU/call |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|\n")
	for _, name := range names {
		fmt.Fprintf(out, "| %s |", name)
		for _, tr := range transports {
			f, ok := med[key{name, tr}]
			if !ok {
				fmt.Fprintf(out, " | |")
				continue
			}
			fmt.Fprintf(out, " %.1fk | %.2f µs |", f.callsPerSec/1000, f.cpuPerCallUS)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)

	for _, tr := range transports {
		m, ok := med[key{mcpgenName, tr}]
		if !ok {
			continue
		}
		if fl, ok := med[key{floorName, tr}]; ok && fl.cpuPerCallUS > 0 {
			fmt.Fprintf(out, "%s: mcpgen's server CPU per call is %.2fx the floor's\n", tr, m.cpuPerCallUS/fl.cpuPerCallUS)
		}
		for _, name := range names {
			// mcpgen's variants (mcpgen traced) against mcpgen itself.
			if v, ok := med[key{name, tr}]; ok && name != mcpgenName && strings.HasPrefix(name, mcpgenName+" ") {
				fmt.Fprintf(out, "%s: %s's server CPU per call is mcpgen's %+.2f µs (%.2fx); it serves %.2fx its calls per second\n",
					tr, name, v.cpuPerCallUS-m.cpuPerCallUS, v.cpuPerCallUS/m.cpuPerCallUS, v.callsPerSec/m.callsPerSec)
			}
		}
		best, bestName := 0.0, ""
		for _, name := range names {
			if name == floorName || name == mcpgenName || strings.HasPrefix(name, mcpgenName+" ") {
				continue
			}
			if f, ok := med[key{name, tr}]; ok && f.callsPerSec > best {
				best, bestName = f.callsPerSec, name
			}
		}
		if best > 0 {
			fmt.Fprintf(out, "%s: mcpgen serves %.2fx the calls per second of the fastest other implementation (%s)\n", tr, m.callsPerSec/best, bestName)
		}
	}
	return nil
}

// median is the median of f over rs (the mean of the middle two of an even count).
func median(rs []result, f func(result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return medianOf(v)
}

func medianOf(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
