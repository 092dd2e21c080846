// Package sample is a file whose chunks the test knows.
package sample

import (
	"fmt"
	"strings"
)

// Greeting is what Greet says.
const Greeting = "hello"

// Greeter greets people.
type Greeter struct {
	Name string
}

// Greet says hello to g.Name.
func (g *Greeter) Greet() string {
	return fmt.Sprintf("%s, %s", Greeting, g.Name)
}

type (
	// ID is a number.
	ID int
	// Set is a set of IDs.
	Set[T comparable] map[T]struct{}
)

// Add adds an ID.
func (s Set[T]) Add(v T) { s[v] = struct{}{} }

func upper(s string) string {
	return strings.ToUpper(s)
}

var x, y, z, w = 1, 2, 3, 4
