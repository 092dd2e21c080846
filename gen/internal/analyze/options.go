package analyze

import (
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/spelling"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// options are what the arguments of one directive may say about a declaration of type T:
// the table each directive has, read by one parser, so that every directive spells options,
// reports unknown ones and suggests what a misspelled one meant in the same way.
type options[T any] struct {
	verb string
	// first takes the first argument when it is no option: a tool's or a prompt's name, a
	// resource's URI. nil when the first argument is an option like the others.
	first *firstArg[T]
	list  []option[T]
	usage string // the hint for an unknown option: what the directive takes
}

// firstArg is what the first argument of a directive may be besides an option.
type firstArg[T any] struct {
	what  string                      // "name" or "URI", for messages
	takes func(a directive.Arg) bool  // whether the argument is one
	set   func(t *T, a directive.Arg) // stores it
	noun  string                      // what the directive declares: "tool"
}

// option is one row: an option's key (and other spellings of it), whether it is a flag, and
// how its value is stored.
type option[T any] struct {
	key     string
	aliases []string
	// flag is an option written alone (meaning true) or as =true or =false; the others take a
	// value.
	flag bool
	// values, if set, are what the option may be set to; written alone, it is the first.
	values []string
	// empty, if set, refuses an empty value, with the hint it returns.
	empty func(t *T) string
	// check, if set, says what is wrong with a value (and a hint), or "" for a good one.
	check func(value string) (problem, hint string)
	set   func(t *T, value string)
}

func (o *option[T]) spells(key string) bool {
	if key == o.key {
		return true
	}
	for _, a := range o.aliases {
		if key == a {
			return true
		}
	}
	return false
}

func (s *options[T]) lookup(key string) *option[T] {
	for i := range s.list {
		if s.list[i].spells(key) {
			return &s.list[i]
		}
	}
	return nil
}

// near returns the option an argument seems to misspell, or "": an option in another case,
// or one or two typos away from a flag (long, unusual words that are unlikely names) or, for
// an argument with a value, from an option that takes one.
func (s *options[T]) near(a directive.Arg) string {
	for _, o := range s.list {
		if a.Key != o.key && strings.EqualFold(a.Key, o.key) {
			return o.key
		}
	}
	for _, o := range s.list {
		if (o.flag || a.HasValue) && a.Key != o.key && spelling.Distance(strings.ToLower(a.Key), o.key) <= 2 {
			return o.key
		}
	}
	return ""
}

// parse applies a directive's arguments to t, reporting every problem.
func (s *options[T]) parse(an *analyzer, d directive.Directive, t *T) {
	if len(s.list) == 0 && s.first == nil {
		if len(d.Args) > 0 {
			an.diags.Hintf(d.Pos, s.usage, "//mcp:%s takes no options", s.verb)
		}
		return
	}
	for i, a := range d.Args {
		opt := s.lookup(a.Key)
		switch {
		case opt != nil && (opt.flag || opt.values != nil):
			// A flag is an option whose values are true (written alone) and false.
			values := opt.values
			if opt.flag {
				values = []string{"true", "false"}
			}
			value := values[0]
			if a.HasValue {
				if !slices.Contains(values, a.Value) {
					an.diags.Errorf(a.Pos, "%s=%s: want %s", a.Key, a.Value, orList(values))
					continue
				}
				value = a.Value
			}
			opt.set(t, value)
			continue
		case opt != nil && a.HasValue:
			if a.Value == "" && opt.empty != nil {
				an.diags.Hintf(a.Pos, "write "+a.Key+"=..., or leave the option out: "+opt.empty(t), "//mcp:%s option %s= has no value", s.verb, a.Key)
				continue
			}
			if opt.check != nil {
				if problem, hint := opt.check(a.Value); problem != "" {
					an.diags.Hintf(a.Pos, hint, "//mcp:%s option %s=%q: %s", s.verb, a.Key, a.Value, problem)
					continue
				}
			}
			opt.set(t, a.Value)
			continue
		}
		near := s.near(a)
		switch {
		case i == 0 && s.first != nil && s.first.takes(a) && (near == "" || s.first.what != "name"):
			s.first.set(t, a)
		case i == 0 && s.first != nil && s.first.what == "name" && !a.HasValue:
			// A misspelled flag would otherwise silently become the name.
			an.diags.Hintf(a.Pos, "options are lower-case; to name the "+s.first.noun+" "+a.Key+", write name="+a.Key,
				"//mcp:%s option %q looks like %q", s.verb, a.Key, near)
		case near != "":
			an.diags.Hintf(a.Pos, "did you mean "+near+"?", "unknown //mcp:%s option %q", s.verb, a.Key)
		default:
			an.diags.Hintf(a.Pos, s.usage, "unknown //mcp:%s option %q", s.verb, a.Key)
		}
	}
}

// boolValue is a flag's value as a pointer, for hints that may be unsaid.
func boolValue(value string) *bool {
	v := value == "true"
	return &v
}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// scopesOption is the scopes= option of tools, prompts and resources: the OAuth scopes a
// caller's token needs on a protected server, separated by spaces or commas.
func scopesOption[T any](set func(*T, []string)) option[T] {
	return option[T]{key: "scopes",
		empty: func(*T) string {
			return `name the OAuth scopes a caller's token needs, such as scopes="files:read files:write"`
		},
		set: func(t *T, v string) {
			set(t, strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }))
		}}
}

// iconOption is the icon= option of tools, resources and prompts, which may be given more
// than once: the image's source (an https: URL or a data: URI), then in any order its sizes
// (48x48, any), its theme (light or dark) and its MIME type (image/png).
func iconOption[T any](add func(*T, model.Icon)) option[T] {
	const hint = `write icon="https://example.com/icon.png 48x48 dark": the source, then any of sizes (48x48, any), a theme (light, dark) and a MIME type (image/png)`
	return option[T]{key: "icon",
		empty: func(*T) string { return `name the image, such as icon="https://example.com/icon.svg any"` },
		check: func(v string) (string, string) {
			_, problem := parseIcon(v)
			return problem, hint
		},
		set: func(t *T, v string) {
			icon, _ := parseIcon(v)
			add(t, icon)
		}}
}

// parseIcon reads an icon= value, or says what is wrong with it.
func parseIcon(v string) (model.Icon, string) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return model.Icon{}, "no source"
	}
	icon := model.Icon{Src: words[0]}
	if !strings.HasPrefix(icon.Src, "https://") && !strings.HasPrefix(icon.Src, "http://") && !strings.HasPrefix(icon.Src, "data:") {
		return icon, "the source " + icon.Src + " is not an http(s): URL or a data: URI"
	}
	for _, w := range words[1:] {
		switch {
		case w == "light" || w == "dark":
			if icon.Theme != "" {
				return icon, "two themes, " + icon.Theme + " and " + w
			}
			icon.Theme = w
		case w == "any" || isSize(w):
			icon.Sizes = append(icon.Sizes, w)
		case strings.HasPrefix(w, "image/"):
			if icon.MIMEType != "" {
				return icon, "two MIME types, " + icon.MIMEType + " and " + w
			}
			icon.MIMEType = w
		default:
			return icon, "what " + w + " says of the icon is unclear"
		}
	}
	return icon, ""
}

// isSize reports whether w is a size of the form 48x48.
func isSize(w string) bool {
	width, height, ok := strings.Cut(w, "x")
	return ok && digits(width) && digits(height)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
