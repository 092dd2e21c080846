// Package failures has tools whose structured results may report a failure: an error result
// (isError true) that keeps its data, for a model to read as a failure with the details.
package failures

import "strconv"

// Query names a build target.
type Query struct {
	Target string `json:"target"`
}

// Build is the outcome of a build: what failed, if anything, and where.
type Build struct {
	Target string   `json:"target"`
	Errors []string `json:"errors,omitempty"`
}

// MCPIsError reports a build with errors as a failure.
func (b Build) MCPIsError() bool { return len(b.Errors) > 0 }

// Compile builds a target; a target named "broken" fails, with its errors.
//
//mcp:tool
func Compile(q Query) Build {
	b := Build{Target: q.Target}
	if q.Target == "broken" {
		b.Errors = []string{"main.go:3:1: undefined: x"}
	}
	return b
}

// Coverage is a test run's coverage, which fails below its threshold.
type Coverage struct {
	Percent int `json:"percent"`
}

// MCPIsError, on the pointer, reports coverage under 80% as a failure.
func (c *Coverage) MCPIsError() bool { return c.Percent < 80 }

// MCPText says the coverage in words.
func (c *Coverage) MCPText() string { return strconv.Itoa(c.Percent) + "% covered" }

// Measure returns the coverage of a target: "small" is under the threshold.
//
//mcp:tool
func Measure(q Query) (*Coverage, error) {
	if q.Target == "small" {
		return &Coverage{Percent: 40}, nil
	}
	return &Coverage{Percent: 90}, nil
}
