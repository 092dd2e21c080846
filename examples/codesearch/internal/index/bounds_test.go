package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// slowTree is a tree with one large file of short lines, on which a regular expression
// without a literal string costs seconds.
func slowTree(t *testing.T) *Index {
	var b strings.Builder
	r := rand.New(rand.NewPCG(1, 2))
	for b.Len() < 4<<20 {
		for range 100 {
			b.WriteByte("abcdefghij0123456789 "[r.IntN(21)])
		}
		b.WriteByte('\n')
	}
	return start(t, writeTree(t, map[string]string{"big.txt": b.String()}), Options{})
}

const slowQuery = `[^x]{300}[0-9]{5}`

// TestSearchStopsWhenCancelled: a search whose request is cancelled stops within a block of
// text, not at the end of the file it is reading (before: it read the file to its end, 4 MiB
// through a costly regular expression, seconds after the cancellation).
func TestSearchStopsWhenCancelled(t *testing.T) {
	ix := slowTree(t)
	m, err := NewMatcher(slowQuery, true, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	begin := time.Now()
	_, err = ix.Search(ctx, &Search{Matcher: m, Path: ".", Max: 10})
	if took := time.Since(begin); !errors.Is(err, context.Canceled) || took > 5*time.Second {
		t.Errorf("a cancelled search returned %v after %v", err, took)
	}
}

// TestSearchStopsInTime: a search bounded in time returns what it found when the time is
// up, says so, and a cursor that goes on from there (before: no bound; [\s\S]{1000} on Go's
// source took 85 s and 681 MB through MCP, now 10 s and 144 MB).
func TestSearchStopsInTime(t *testing.T) {
	ix := slowTree(t)
	m, err := NewMatcher(slowQuery, true, true)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	res, err := ix.Search(context.Background(), &Search{Matcher: m, Path: ".", Max: 10, Timeout: 100 * time.Millisecond})
	if took := time.Since(begin); err != nil || !res.Stopped || !res.More || res.Cursor == "" || took > 5*time.Second {
		t.Errorf("a search bounded to 100ms: %+v, %v after %v", res, err, took)
	}
	c, _ := decodeCursor(res.Cursor)
	if c.Path != "big.txt" || c.Line < 1 {
		t.Errorf("it stopped at %+v", c)
	}
}

// TestStoppedSearchesGoOn: searches stopped as soon as they can be, each continued with the
// cursor of the one before, find exactly what one search without a bound finds: each goes
// further than the last, and none leaves out a match or gives one twice.
func TestStoppedSearchesGoOn(t *testing.T) {
	files := map[string]string{}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 6 {
		var b strings.Builder
		for b.Len() < 48<<10 {
			for range r.IntN(90) {
				b.WriteByte("abcdefgh0123 \t_("[r.IntN(16)])
			}
			b.WriteByte('\n')
		}
		files[fmt.Sprintf("f%d.txt", i)] = b.String()
	}
	ix := start(t, writeTree(t, files), Options{})
	for _, q := range []struct {
		expr  string
		regex bool
	}{{"ab", false}, {`[a-c][0-3]{2}[d-f]`, true}, {`^[^(]*\([a-h]{2}`, true}} {
		m, err := NewMatcher(q.expr, q.regex, true)
		if err != nil {
			t.Fatal(err)
		}
		want := all(t, ix, Search{Matcher: m, Path: "."}, 1000)
		var got []string
		s := Search{Matcher: m, Path: ".", Max: 50, Timeout: time.Nanosecond}
		stops := 0
		for range 100000 {
			res, err := ix.Search(context.Background(), &s)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				got = append(got, fmt.Sprintf("%s:%d:%d", h.Path, h.Line, h.Column))
			}
			if res.Stopped {
				stops++
			}
			if !res.More {
				break
			}
			if res.Cursor == s.After {
				t.Fatalf("%s: no progress past %q", q.expr, s.After)
			}
			s.After = res.Cursor
		}
		if !slices.Equal(got, want) || stops == 0 {
			t.Errorf("%s: %d hits in %d stopped searches, want %d hits as one search finds", q.expr, len(got), stops, len(want))
		}
	}
}
