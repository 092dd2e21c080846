// Command otelcol is a real OpenTelemetry Collector for mcpgen's observability tests, built
// from the collector's published Go modules as the collector builder (ocb) would: the core
// otelcol with the OTLP receiver, the file exporter (OTLP JSON, one line per export) and
// the debug exporter, nothing else. Tests build it with go build in this directory and run
// it with a configuration of their own (see internal/otelcoltest).
//
// It is a module of its own, so the collector's dependencies stay out of mcpgen's go.mod;
// every collector module is at one release (core v0.161.0 / v1.67.0, contrib v0.161.0, the
// newest with which the contrib file exporter builds here).
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	// SIGTERM and SIGINT end the collector gracefully (its exporters flush) from the start.
	// The collector's own handling begins only after it has said it is ready, and a signal
	// in between killed it.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	settings := otelcol.CollectorSettings{
		DisableGracefulShutdown: true, // done above
		BuildInfo: component.BuildInfo{
			Command:     "otelcol",
			Description: "OpenTelemetry Collector for mcpgen's tests",
			Version:     "0.161.0",
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(settings).ExecuteContext(ctx); err != nil {
		log.Fatal(err)
	}
}

func components() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory(), debugexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: receivers,
		Exporters: exporters,
		Telemetry: otelconftelemetry.NewFactory(),
	}, nil
}
