package otelmcp

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// OpenTelemetry's OTLP/HTTP metric exporter for Go writes protobuf only, while its trace
// exporter follows OTEL_EXPORTER_OTLP_PROTOCOL=http/json: a collector told to expect JSON
// got traces as JSON and metrics as protobuf. jsonMetrics is the exporter's HTTP transport
// when the protocol of metrics is http/json: it sends each export request, which the
// exporter has encoded as protobuf, as OTLP/JSON.

// metricsProtocol is the OTLP protocol of metrics: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, else
// OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf.
func metricsProtocol(getenv func(string) string) string {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			return p
		}
	}
	return "http/protobuf"
}

// jsonMetricsClient is the HTTP client of the metric exporter for http/json: the
// exporter's own settings that live in its client (TLS from the certificate variables, the
// timeout) are read here, as the exporter reads them for its own client.
func jsonMetricsClient(getenv func(string) string) (*http.Client, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	tlsConfig, err := tlsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	base.TLSClientConfig = tlsConfig
	timeout := 10 * time.Second
	if ms, err := strconv.Atoi(envOf(getenv, "TIMEOUT")); err == nil && ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	return &http.Client{Transport: jsonMetrics{base}, Timeout: timeout}, nil
}

// envOf is the metrics' variable OTEL_EXPORTER_OTLP_METRICS_<name>, else the general
// OTEL_EXPORTER_OTLP_<name>.
func envOf(getenv func(string) string, name string) string {
	if v := getenv("OTEL_EXPORTER_OTLP_METRICS_" + name); v != "" {
		return v
	}
	return getenv("OTEL_EXPORTER_OTLP_" + name)
}

// tlsFromEnv is the TLS configuration the certificate variables ask for, or nil.
func tlsFromEnv(getenv func(string) string) (*tls.Config, error) {
	ca, cert, key := envOf(getenv, "CERTIFICATE"), envOf(getenv, "CLIENT_CERTIFICATE"), envOf(getenv, "CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	c := &tls.Config{}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("otelmcp: OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("otelmcp: OTEL_EXPORTER_OTLP_CERTIFICATE: no certificate in %s", ca)
		}
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("otelmcp: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// jsonMetrics sends the metric exporter's protobuf requests as OTLP/JSON.
type jsonMetrics struct{ next http.RoundTripper }

func (j jsonMetrics) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	var m colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("otelmcp: reading the metrics to send as JSON: %w", err)
	}
	data, err := otlpJSON(&m)
	if err != nil {
		return nil, err
	}
	if req.Header.Get("Content-Encoding") == "gzip" {
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		zw.Write(data)
		zw.Close()
		data = zipped.Bytes()
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(data))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	out.ContentLength = int64(len(data))
	out.Header.Set("Content-Type", "application/json")
	return j.next.RoundTrip(out)
}

// readBody is a request's body, uncompressed.
func readBody(req *http.Request) ([]byte, error) {
	var r io.Reader = req.Body
	defer req.Body.Close()
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return io.ReadAll(r)
}

// otlpJSON writes a message as OTLP/JSON: protobuf's JSON mapping with the names in
// lowerCamelCase and enums as numbers, but trace and span ids in hex, not base64.
func otlpJSON(m proto.Message) ([]byte, error) {
	data, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	hexIDs(v)
	return json.Marshal(v)
}

// hexIDs rewrites every traceId and spanId in v from base64 to hex.
func hexIDs(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "traceId" || k == "spanId") {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					v[k] = hex.EncodeToString(b)
				}
				continue
			}
			hexIDs(x)
		}
	case []any:
		for _, x := range v {
			hexIDs(x)
		}
	}
}
