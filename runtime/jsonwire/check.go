package jsonwire

import (
	"strconv"
	"strings"
)

// Checker collects the problems of a Go value that is about to be encoded, each with the
// JSON Pointer it will have in the output, so that a server never sends a result that breaks
// the schema it declared. Generated code walks the value, entering the properties and items
// that have rules.
type Checker struct {
	path     []step
	problems []Problem
	omitted  int
}

type step struct {
	name  string
	index int // when name is ""
}

// Reset forgets the path and the problems, keeping allocated memory.
func (c *Checker) Reset() {
	c.path, c.problems, c.omitted = c.path[:0], c.problems[:0], 0
}

// Enter makes a property the current path.
func (c *Checker) Enter(name string) { c.path = append(c.path, step{name: name}) }

// EnterIndex makes an item of a list the current path.
func (c *Checker) EnterIndex(i int) { c.path = append(c.path, step{index: i}) }

// Leave returns to the parent of the current path.
func (c *Checker) Leave() { c.path = c.path[:len(c.path)-1] }

// Report records a problem with the value at the current path.
func (c *Checker) Report(message string) {
	if len(c.problems) >= maxProblems {
		c.omitted++
		return
	}
	var b strings.Builder
	for _, s := range c.path {
		b.WriteByte('/')
		if s.name == "" {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			writePointerToken(&b, s.name)
		}
	}
	c.problems = append(c.problems, Problem{Path: b.String(), Message: message})
}

// Failed reports whether any problem was found.
func (c *Checker) Failed() bool { return len(c.problems) > 0 }

// Summary joins all problems into one message, one per line.
func (c *Checker) Summary() string { return summary(c.problems, c.omitted) }
