package main

import "strconv"

// AppendMCPText writes search_code's text block the way grep -n --column -C writes its
// output, which a model reads more easily than the JSON: every line, context too, comes
// with its number (the JSON leaves those of context lines to be counted), code is as in the
// file (no \" or \t escapes), and a line is written once where the contexts of near matches
// overlap. On searches of this repository and of Go's net/http it took 0.58 to 1.03 times
// the tokens of the JSON. structuredContent still carries the JSON, for clients that decode
// it.
//
//	notes/todo.txt-1-line 1
//	notes/todo.txt:2:8:line 2 hello
//	notes/todo.txt-3-line 3
//	--
//	sample.go:11:15:// Greet says hello to g.Name.
//
// A matching line is path:line:column:text, a line of context path-line-text, and --
// separates lines that are not adjacent (when there is context, as in grep). Lines about
// the search follow, after a blank line: how many lines matched and how many files were
// read, what was not searched and how to include it, how the search ran while the index was
// being built, and the cursor of the next page; so a client that reads only text loses
// nothing.
func (r *SearchCodeResult) AppendMCPText(b []byte) []byte {
	withContext := false
	for _, m := range r.Matches {
		if len(m.ContextBefore) > 0 || len(m.ContextAfter) > 0 {
			withContext = true
			break
		}
	}
	last, lastLine := "", 0 // the path and number of the last line written
	for i, m := range r.Matches {
		first := m.LineNumber - len(m.ContextBefore)
		if m.FilePath == last {
			first = max(first, lastLine+1) // the previous match's context wrote those
		}
		if withContext && last != "" && (m.FilePath != last || first > lastLine+1) {
			b = append(b, "--\n"...)
		}
		for n := first; n < m.LineNumber; n++ {
			b = appendLine(b, m.FilePath, n, 0, m.ContextBefore[n-(m.LineNumber-len(m.ContextBefore))])
		}
		b = appendLine(b, m.FilePath, m.LineNumber, m.Column, m.Line)
		end := m.LineNumber + len(m.ContextAfter)
		if i+1 < len(r.Matches) && r.Matches[i+1].FilePath == m.FilePath {
			end = min(end, r.Matches[i+1].LineNumber-1) // the next match is written as one
		}
		for n := m.LineNumber + 1; n <= end; n++ {
			b = appendLine(b, m.FilePath, n, 0, m.ContextAfter[n-m.LineNumber-1])
		}
		last, lastLine = m.FilePath, max(end, m.LineNumber)
	}

	if len(r.Matches) > 0 {
		b = append(b, '\n')
		b = appendCount(b, len(r.Matches), "matching line")
		b = append(b, "; "...)
	} else {
		b = append(b, "No matches; "...)
	}
	b = appendCount(b, r.FilesSearched, "file")
	b = append(b, " searched.\n"...)
	for i, s := range r.Skipped {
		if i == 0 {
			b = append(b, "Not searched: "...)
		} else {
			b = append(b, "; "...)
		}
		switch s.Reason {
		case "too large":
			b = append(appendCount(b, s.Files, "file"), " too large"...)
		case "vendored", "generated":
			b = append(appendCount(b, s.Files, s.Reason+" file"), " that may match"...)
		default:
			b = appendCount(b, s.Files, s.Reason+" file")
		}
		b = append(b, " ("...)
		if s.Files > 1 {
			b = append(b, "such as "...)
		}
		b = append(b, s.Example...)
		if s.Hint != "" {
			b = append(append(b, ": "...), s.Hint...)
		}
		b = append(b, ')')
		if i == len(r.Skipped)-1 {
			b = append(b, ".\n"...)
		}
	}
	if r.Index != "ready" {
		b = append(append(append(b, "Index: "...), r.Index...), ".\n"...)
	}
	if r.Partial != "" {
		b = append(append(append(b, "Partial: "...), r.Partial...), ".\n"...)
	}
	if r.Truncated {
		b = append(b, "There are more matches: call search_code again with cursor "...)
		b = strconv.AppendQuote(b, r.NextCursor)
		b = append(b, " for the next ones.\n"...)
	}
	return b
}

// appendLine writes a line as grep does: path:line:column:text for a match, path-line-text
// for context (column 0).
func appendLine(b []byte, path string, line, column int, text string) []byte {
	sep := byte('-')
	if column > 0 {
		sep = ':'
	}
	b = append(append(b, path...), sep)
	b = append(strconv.AppendInt(b, int64(line), 10), sep)
	if column > 0 {
		b = append(strconv.AppendInt(b, int64(column), 10), sep)
	}
	return append(append(b, text...), '\n')
}

// appendCount writes "1 thing" or "n things".
func appendCount(b []byte, n int, thing string) []byte {
	b = append(strconv.AppendInt(b, int64(n), 10), ' ')
	b = append(b, thing...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}
