package main

import (
	"strings"

	"github.com/urfave/cli/v3"
)

// helpWidth is the width help text is wrapped to.
const helpWidth = 90

// flagHelp writes a flag for help as Go's flag package does: its names and placeholder on
// one line, what it does on the lines below, wrapped. urfave/cli's default puts both on one
// line in two columns, as wide as the widest names (--header's are 87 characters), which
// no terminal shows whole.
func flagHelp(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return strings.Join(f.Names(), ", ")
	}
	placeholder, usage := placeholderOf(df.GetUsage())
	if df.TakesValue() && placeholder == "" {
		placeholder = "value"
	}
	var names []string
	for _, n := range f.Names() {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		if placeholder != "" {
			n += " " + placeholder
		}
		names = append(names, dash+n)
	}
	head := strings.Join(names, ", ")
	if env := df.GetEnvVars(); len(env) > 0 {
		head += "  [$" + strings.Join(env, ", $") + "]"
	}
	if def := df.GetDefaultText(); def != "" {
		usage += " (default: " + def + ")"
	} else if v := df.GetValue(); df.TakesValue() && v != "" && df.IsDefaultVisible() {
		usage += " (default: " + v + ")"
	}
	// The help template indents the head by 3 and the lines after it by 6 more.
	return head + "\n" + wrapWords(usage, helpWidth-3-6)
}

// placeholderOf takes the `placeholder` out of a flag's usage, as urfave/cli does.
func placeholderOf(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// wrapWords breaks s into lines of at most width characters, between words.
func wrapWords(s string, width int) string {
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(s) {
		switch {
		case line == 0:
		case line+1+len(w) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
