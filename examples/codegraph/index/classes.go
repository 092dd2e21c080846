package index

import "strings"

// classIndex is what the resolvers of languages with classes share: the declarations by
// qualified name and by name, and each class's bases once resolved.
type classIndex struct {
	defs    map[string]*sdef
	funcs   map[string][]string // functions and classes, by name
	methods map[string][]string // methods, by name
	bases   map[string][]string
	sep     string // between a class and its members: "." ("::" in Rust)
}

func newClassIndex(files []*sfile) classIndex {
	x := classIndex{defs: map[string]*sdef{}, funcs: map[string][]string{}, methods: map[string][]string{}, bases: map[string][]string{}, sep: "."}
	for _, f := range files {
		for i := range f.defs {
			d := &f.defs[i]
			if x.defs[d.qname] != nil {
				continue // an overload: the symbol is the same
			}
			x.defs[d.qname] = d
			switch d.kind {
			case "func", "class":
				x.funcs[d.name] = append(x.funcs[d.name], d.qname)
			case "method":
				x.methods[d.name] = append(x.methods[d.name], d.qname)
			}
		}
	}
	return x
}

// resolveBases records each class's bases, as the language's resolver finds them.
func (x *classIndex) resolveBases(files []*sfile, base func(*sfile, sbase) (string, string)) {
	for _, f := range files {
		for _, b := range f.bases {
			if t, _ := base(f, b); t != "" {
				x.bases[b.class] = append(x.bases[b.class], t)
			}
		}
	}
}

// method finds a method of a class or of its bases, nearest first.
func (x *classIndex) method(class, name string, depth int) string {
	if depth > 10 {
		return ""
	}
	if q := class + x.sep + name; x.defs[q] != nil {
		return q
	}
	for _, b := range x.bases[class] {
		if m := x.method(b, name, depth+1); m != "" {
			return m
		}
	}
	return ""
}

// commonMethods are names too common to guess a method by: those of the languages' own
// objects, collections and streams.
var commonMethods = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`toString equals hashCode get set put add remove size length isEmpty contains push pop shift
		unshift map filter reduce forEach some every find findIndex indexOf includes join slice splice concat keys values entries
		has delete clear then catch finally apply call bind subscribe next error complete close open read write start stop run
		emit on off send valueOf iterator compareTo clone getClass name init update`) {
		commonMethods[m] = true
	}
}

// byName guesses a call by name alone: the only function of the name for a call without a
// receiver, the only method for one with a receiver of unknown type.
func (x *classIndex) byName(c scall) (string, string) {
	if commonMethods[c.name] && c.recv != "" {
		return "", ""
	}
	qs := x.methods[c.name]
	if c.recv == "" {
		qs = x.funcs[c.name]
	}
	if len(qs) == 1 {
		return qs[0], "name"
	}
	return "", ""
}
