package main

import (
	"fmt"
	"io"
	"math"
)

// Paired runs: on a shared machine the speed of a minute changes more than a small change
// of the code does, so two servers run in the same few seconds are compared with each
// other, pair by pair, and the pairs' ratios summarised. Their median is the change; how
// many pairs went each way says whether it is one: twelve pairs split 6 to 6 are chance,
// 11 to 1 are not.

// era is one transport and revision the paired runs cover, in the order reported.
type era struct{ transport, revision, label string }

var eras = []era{
	{"stdio", "2025-06-18", "stdio"},
	{"http", "2025-06-18", "HTTP"},
	{"stdio", "2026-07-28", "stdio stateless (2026-07-28)"},
	{"http", "2026-07-28", "HTTP stateless (2026-07-28)"},
}

// paired reports a against b from runs made in turns: the i-th run of a over a transport
// and revision is paired with the i-th run of b over the same.
func paired(in io.Reader, out io.Writer, a, b string) error {
	all, err := read(in)
	if err != nil {
		return err
	}
	type key struct{ name, transport, revision string }
	runs := map[key][]result{}
	for _, r := range all {
		if r.Revision == "" {
			r.Revision = "2025-06-18" // load before -stateless
		}
		k := key{r.Name, r.Transport, r.Revision}
		runs[k] = append(runs[k], r)
	}
	fmt.Fprintf(out, "%s against %s, run by run in pairs: the median of the per-pair ratios (%s / %s); \"worse in\" counts the pairs that went against %s, p is a two-sided sign test's\n", a, b, a, b, a)
	reported := 0
	for _, e := range eras {
		ra, rb := runs[key{a, e.transport, e.revision}], runs[key{b, e.transport, e.revision}]
		n := min(len(ra), len(rb))
		if n == 0 {
			continue
		}
		reported++
		cpu := make([]float64, n)
		rate := make([]float64, n)
		for i := range n {
			cpu[i] = ra[i].CPUPerCallMicros / rb[i].CPUPerCallMicros
			rate[i] = ra[i].CallsPerSec / rb[i].CallsPerSec
		}
		cpuWorse, cpuBetter := count(cpu, func(r float64) bool { return r > 1 }), count(cpu, func(r float64) bool { return r < 1 })
		rateWorse, rateBetter := count(rate, func(r float64) bool { return r < 1 }), count(rate, func(r float64) bool { return r > 1 })
		fmt.Fprintf(out, "%s server CPU/call: %.2fx (worse in %d of %d pairs, p = %.2f); calls/s: %.2fx (fewer in %d of %d, p = %.2f); medians %.2f µs against %.2f µs, %.1fk against %.1fk calls/s\n",
			e.label, medianOf(cpu), cpuWorse, n, signTest(cpuWorse, cpuBetter),
			medianOf(rate), rateWorse, n, signTest(rateWorse, rateBetter),
			median(ra[:n], func(r result) float64 { return r.CPUPerCallMicros }), median(rb[:n], func(r result) float64 { return r.CPUPerCallMicros }),
			median(ra[:n], func(r result) float64 { return r.CallsPerSec })/1000, median(rb[:n], func(r result) float64 { return r.CallsPerSec })/1000)
		if len(ra) != len(rb) {
			fmt.Fprintf(out, "  (%s: %d runs of %s, %d of %s: the first %d of each paired)\n", e.label, len(ra), a, len(rb), b, n)
		}
	}
	if reported == 0 {
		return fmt.Errorf("no runs of both %q and %q over the same transport", a, b)
	}
	return nil
}

func count(v []float64, f func(float64) bool) int {
	n := 0
	for _, x := range v {
		if f(x) {
			n++
		}
	}
	return n
}

// signTest is the two-sided p of a sign test: the chance, were each pair a coin toss
// (neither server faster), of a split at least as uneven as k to j (ties left out).
func signTest(k, j int) float64 {
	n := k + j
	if n == 0 {
		return 1
	}
	tail := 0.0
	for i := 0; i <= min(k, j); i++ {
		tail += binomial(n, i)
	}
	return math.Min(1, 2*tail/math.Pow(2, float64(n)))
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
