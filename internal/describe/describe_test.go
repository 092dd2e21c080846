package describe

import "testing"

func TestDescription(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"GetWeather", "GetWeather returns the current weather for a city.\n", "Returns the current weather for a city."},
		{"FilePath", "FilePath is the file's path.\n", "The file's path."},
		{"ChunkInput", "ChunkInput names a file.\n", "Names a file."},
		{"Items", "Items are the lines read.", "The lines read."},
		{"Page[T]", "Page is one page of results.", "One page of results."},
		{"Limit", "Limit may be zero for no limit.", "May be zero for no limit."},
		{"Config", "Config holds the settings.", "Holds the settings."},
		// A name at the head of a noun phrase is spelled as words.
		{"WindSpeed", "WindSpeed in km/h or mph.", "Wind speed in km/h or mph."},
		{"MaxURLLength", "MaxURLLength of any link, in bytes.", "Max URL length of any link, in bytes."},
		{"userID", "userID of the owner.", "User ID of the owner."},
		{"HTTPServer", "HTTPServer as configured.", "HTTP server as configured."},
		{"V2Items", "V2Items always sorted.", "V2 items always sorted."},
		{"Units", "Units of the report: metric or imperial.", "Units of the report: metric or imperial."},
		{"Count", "Count is 3 by default.", "Count is 3 by default."},
		// Before values, the name stays: "Function, method" would not say what it lists.
		{"Kind", "Kind is function, method, type or var.", "Kind is function, method, type or var."},
		{"Kind", "Kind is function, method, struct, interface, type, class, const, var, import,\npackage, section, lines...\n",
			"Kind is function, method, struct, interface, type, class, const, var, import, package, section, lines..."},
		{"SymbolKind", "SymbolKind is function, method or type.", "Symbol kind is function, method or type."},
		{"Verbose", "Verbose is true to print more.", "Verbose is true to print more."},
		{"Format", "Format is json or text.", "Format is json or text."},
		{"Query", "Query is where and how to run it.", "Where and how to run it."},
		{"Visible", "Visible is exported, in an embedded struct.", "Exported, in an embedded struct."},
		{"Path", "Path is relative to the root.", "Relative to the root."},
		{"Tenant", "Tenant is optional: no header when it is absent.", "Optional: no header when it is absent."},
		{"Mode", "Mode is either exact or prefix.", "Mode is either exact or prefix."},
		{"Limit", "Limit is how many lines to read.", "How many lines to read."},
		{"Lang", "Lang is a BCP 47 language tag.", "A BCP 47 language tag."},
		{"Owner", "Owner is whoever created it.", "Whoever created it."},
		{"Status", "Status previous to the change.", "Status previous to the change."},
		{"Count", "Count GitHub stars.", "Count GitHub stars."},
		// Left as written: another name, the name alone, or a name that is only the start of
		// the first word.
		{"City", "The city to look up.", "The city to look up."},
		{"City", "Name of the city.", "Name of the city."},
		{"City", "City", "City"},
		{"City", "Cityscape is a picture.", "Cityscape is a picture."},
		{"Unit", "", ""},
		{"Now", "Now.\n", "Now."},
		{"Add", "Adds two numbers.", "Adds two numbers."},
		{"Search", "Search finds documents.\n\nIt is fast.\n", "Finds documents.\n\nIt is fast."},
		// Wrapped lines are joined; paragraphs, lists and code stay apart.
		{"Chunk", "Chunk returns the lines of a file between two line numbers, counted from\none, both included.\n\nA range beyond the end of the file is cut short.\n",
			"Returns the lines of a file between two line numbers, counted from one, both included.\n\nA range beyond the end of the file is cut short."},
		{"Mode", "Mode says how to match:\n  - exact: the whole\n    name\n  - prefix: its start\n",
			"Says how to match:\n  - exact: the whole name\n  - prefix: its start"},
		{"Query", "Query is a search, such as\n\n\tfoo AND bar\n\nin the index's syntax. See [strings.Contains].",
			"A search, such as\n\n\tfoo AND bar\n\nin the index's syntax. See strings.Contains."},
	} {
		if got := Description(tc.name, tc.doc); got != tc.want {
			t.Errorf("Description(%q, %q)\n got %q\nwant %q", tc.name, tc.doc, got, tc.want)
		}
	}
}
