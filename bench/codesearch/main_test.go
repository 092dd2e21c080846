package main

import (
	"testing"
	"time"
)

func TestParseGrepLine(t *testing.T) {
	m, ok := parseGrepLine("./a/b.go:12:5:\tx := y // a:b:c")
	if !ok || m != (match{"a/b.go", 12, 5}) {
		t.Errorf("parseGrepLine = %+v, %v", m, ok)
	}
	for _, bad := range []string{"", "a.go:12", "a.go:x:1:text", "Binary file a.bin matches"} {
		if _, ok := parseGrepLine(bad); ok {
			t.Errorf("parseGrepLine(%q) accepted", bad)
		}
	}
}

func TestCompare(t *testing.T) {
	a := []match{{"a", 1, 1}, {"b", 2, 3}}
	if got := compare(a, []match{{"b", 2, 3}, {"a", 1, 1}}); got != "yes" {
		t.Errorf("same matches in another order: %s", got)
	}
	if got := compare(a, []match{{"a", 1, 1}, {"b", 2, 4}, {"c", 1, 1}}); got != "no (+1 −2)" {
		t.Errorf("different matches: %s", got)
	}
}

func TestPercentile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3}
	if median(d) != 3 || percentile(d, 99) != 5 || percentile(d, 1) != 1 || median(nil) != 0 {
		t.Errorf("median %v p99 %v p1 %v", median(d), percentile(d, 99), percentile(d, 1))
	}
}
