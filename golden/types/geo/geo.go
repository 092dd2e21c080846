// Package geo has a struct named like one of package types, to check that generated names
// stay unique and stable.
package geo

// Node is a point on the map.
type Node struct {
	// Lat is the latitude in degrees: its doc comment reaches the schema although this
	// package is not among those mcpgen is asked to generate.
	Lat float64 `json:"lat" jsonschema:"minimum=-90,maximum=90"`
	Lon float64 `json:"lon" jsonschema:"minimum=-180,maximum=180"` // Lon is the longitude in degrees.
}

// coords is unexported: its fields are promoted into Site.
type coords struct {
	// Alt is the altitude in meters.
	Alt float64 `json:"alt,omitempty"`
}

// Extra is embedded by pointer in an unexported struct.
type Extra struct {
	Note string `json:"note,omitempty"`
}

type tagged struct {
	*Extra
	Label string `json:"label" jsonschema:"minLength=1"`
}

// Site embeds unexported structs, which other packages cannot name: generated code selects
// their fields as promoted fields.
type Site struct {
	coords
	tagged
	Name string `json:"name"`
}
