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
