// Package weather is the computation behind examples/weather's get_weather tool, shared by
// the benchmark servers built with other SDKs, so that every server answers alike.
//
// Get gives exactly the reports of examples/weather's GetWeather: the same seed, the same
// pseudo-random draws, the same rounding. The one difference is that Get reads empty units
// as "metric", since the mcpgen server fills in that default before GetWeather sees the
// input, and not every SDK does.
//
// The jsonschema tags are descriptions, in the dialect of github.com/google/jsonschema-go
// (which both go-sdk and mcp-go use to derive schemas): plain text, never "key=value".
// Constraints (lengths, enums, defaults) are added by each server in its own way.
package weather

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
)

// WeatherInput names the city to report on.
type WeatherInput struct {
	City  string `json:"city" jsonschema:"The name of the city, for example \"Lisbon\"."`
	Units string `json:"units,omitempty" jsonschema:"Units of the report: metric (°C, km/h) or imperial (°F, mph)."`
}

// WeatherReport is the current weather in a city.
type WeatherReport struct {
	City        string        `json:"city"`
	Units       string        `json:"units" jsonschema:"Units the report is in."`
	Temperature float64       `json:"temperature" jsonschema:"Temperature in °C or °F, depending on the units."`
	Conditions  string        `json:"conditions" jsonschema:"Conditions in a few words, for example \"light rain\"."`
	Humidity    int           `json:"humidity" jsonschema:"Humidity in percent."`
	WindSpeed   float64       `json:"windSpeed" jsonschema:"Wind speed in km/h or mph, depending on the units."`
	Forecast    []DayForecast `json:"forecast" jsonschema:"Forecast for the next three days."`
}

// DayForecast is the expected weather of one day.
type DayForecast struct {
	Day        string  `json:"day" jsonschema:"The day of the week."`
	High       float64 `json:"high"`
	Low        float64 `json:"low"`
	Conditions string  `json:"conditions" jsonschema:"Conditions in a few words."`
}

// Tool metadata, as examples/weather declares it.
const (
	ToolName         = "get_weather"
	ToolTitle        = "Current weather"
	ToolDescription  = "Returns the current weather and a three-day forecast for a city."
	InputDescription = "Names the city to report on."
	Instructions     = "Use get_weather for the current weather and a three-day forecast of a city. The data is sample data."
)

var conditions = []string{"clear sky", "partly cloudy", "overcast", "light rain", "heavy rain", "thunderstorms", "fog", "snow"}

var days = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// Get returns the current weather and a three-day forecast for a city.
func Get(ctx context.Context, in WeatherInput) (WeatherReport, error) {
	city := strings.TrimSpace(in.City)
	if city == "" {
		return WeatherReport{}, errors.New("city must not be blank")
	}
	units := in.Units
	if units == "" {
		units = "metric"
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(city)))
	seed := h.Sum64()
	draw := func(n int) uint64 { // the next pseudo-random number in [0, n)
		seed = seed*6364136223846793005 + 1442695040888963407
		return (seed >> 33) % uint64(n)
	}

	celsius := float64(draw(45)) - 10
	wind := float64(draw(60))
	r := WeatherReport{
		City:        city,
		Units:       units,
		Temperature: celsius,
		Conditions:  conditions[draw(len(conditions))],
		Humidity:    int(draw(101)),
		WindSpeed:   wind,
		Forecast:    make([]DayForecast, 0, 3),
	}
	first := int(draw(len(days)))
	for i := range 3 {
		high := celsius + float64(draw(7)) - 2
		low := high - float64(draw(10)) - 1
		r.Forecast = append(r.Forecast, DayForecast{
			Day:        days[(first+i)%len(days)],
			High:       high,
			Low:        low,
			Conditions: conditions[draw(len(conditions))],
		})
	}
	if units == "imperial" {
		r.Temperature = toFahrenheit(r.Temperature)
		r.WindSpeed = math.Round(r.WindSpeed/1.609*10) / 10
		for i := range r.Forecast {
			r.Forecast[i].High = toFahrenheit(r.Forecast[i].High)
			r.Forecast[i].Low = toFahrenheit(r.Forecast[i].Low)
		}
	}
	return r, nil
}

func toFahrenheit(c float64) float64 { return math.Round((c*9/5+32)*10) / 10 }
