package openapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// recordPrefix starts the header line of ToolsFile that records how the package was
// generated.
const recordPrefix = "mcpgen openapi options: "

// Record is how a package was generated, as ToolsFile records it: mcpgen check generates it
// again from it.
type Record struct {
	Spec    string   `json:"spec"` // relative to the package's directory, or a URL
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Name    string   `json:"name,omitempty"`
}

// ReadRecord reads the record of the package in dir; ok is false when dir has no package
// mcpgen openapi generated.
func ReadRecord(dir string) (rec *Record, pkg string, main, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, ToolsFile))
	if err != nil {
		return nil, "", false, false, nil
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := s.Text()
		if text, found := strings.CutPrefix(line, "// "+recordPrefix); found {
			rec = &Record{}
			if err := json.Unmarshal([]byte(text), rec); err != nil {
				return nil, "", false, false, fmt.Errorf("%s: the record of how it was generated: %v", filepath.Join(dir, ToolsFile), err)
			}
		}
		if name, found := strings.CutPrefix(line, "package "); found {
			pkg = strings.TrimSpace(name)
			break
		}
	}
	if rec == nil {
		return nil, "", false, false, nil
	}
	_, err = os.Stat(filepath.Join(dir, MainFile))
	return rec, pkg, err == nil, true, nil
}

// Options are the options that generate the package of dir again, as recorded.
func (r *Record) Options(dir, pkg string, main bool, digest string) Options {
	return Options{Dir: dir, Package: pkg, Main: main, Spec: r.Spec, Digest: digest, Include: r.Include, Exclude: r.Exclude, ServerName: r.Name}
}
