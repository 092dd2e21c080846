// Weather is the smallest real mcpgen server: one tool, get_weather, served over stdio.
//
// The reports are sample data, computed from the city's name so that the same question
// always gets the same answer; no weather service is called.
package main

//go:generate go tool mcpgen

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// WeatherInput names the city to report on.
type WeatherInput struct {
	// City is the name of the city, for example "Lisbon".
	City string `json:"city" jsonschema:"minLength=1,maxLength=100"`
	// Units of the report: metric (°C, km/h) or imperial (°F, mph).
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial,default=metric"`
}

// WeatherReport is the current weather in a city.
type WeatherReport struct {
	City string `json:"city"`
	// Units the report is in.
	Units string `json:"units"`
	// Temperature in °C or °F, depending on the units.
	Temperature float64 `json:"temperature"`
	// Conditions in a few words, for example "light rain".
	Conditions string `json:"conditions"`
	// Humidity in percent.
	Humidity int `json:"humidity" jsonschema:"minimum=0,maximum=100"`
	// WindSpeed in km/h or mph, depending on the units.
	WindSpeed float64 `json:"windSpeed"`
	// Forecast for the next three days.
	Forecast []DayForecast `json:"forecast"`
}

// DayForecast is the expected weather of one day.
type DayForecast struct {
	// Day is the day of the week.
	Day  string  `json:"day"`
	High float64 `json:"high"`
	Low  float64 `json:"low"`
	// Conditions in a few words.
	Conditions string `json:"conditions"`
}

var conditions = []string{"clear sky", "partly cloudy", "overcast", "light rain", "heavy rain", "thunderstorms", "fog", "snow"}

var days = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// GetWeather returns the current weather and a three-day forecast for a city.
//
//mcp:tool get_weather title="Current weather" readonly openworld=false
func GetWeather(ctx context.Context, in WeatherInput) (WeatherReport, error) {
	city := strings.TrimSpace(in.City)
	if city == "" {
		return WeatherReport{}, fmt.Errorf("city must not be blank")
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(city)))
	seed := h.Sum64()
	pick := func(n int) uint64 { // successive pseudo-random draws from the seed
		seed = seed*6364136223846793005 + 1442695040888963407
		return (seed >> 33) % uint64(n)
	}

	celsius := float64(pick(45)) - 10
	wind := float64(pick(60))
	report := WeatherReport{
		City:        city,
		Units:       in.Units,
		Temperature: celsius,
		Conditions:  conditions[pick(len(conditions))],
		Humidity:    int(pick(101)),
		WindSpeed:   wind,
	}
	start := int(pick(len(days)))
	for i := range 3 {
		high := celsius + float64(pick(7)) - 2
		report.Forecast = append(report.Forecast, DayForecast{
			Day:        days[(start+i)%len(days)],
			High:       high,
			Low:        high - float64(pick(10)) - 1,
			Conditions: conditions[pick(len(conditions))],
		})
	}
	if in.Units == "imperial" {
		report.Temperature = fahrenheit(report.Temperature)
		report.WindSpeed = math.Round(report.WindSpeed/1.609*10) / 10
		for i := range report.Forecast {
			report.Forecast[i].High = fahrenheit(report.Forecast[i].High)
			report.Forecast[i].Low = fahrenheit(report.Forecast[i].Low)
		}
	}
	return report, nil
}

func fahrenheit(c float64) float64 { return math.Round((c*9/5+32)*10) / 10 }
