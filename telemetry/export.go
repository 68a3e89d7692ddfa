package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Endpoint says where and how to send spans over OTLP/HTTP.
type Endpoint struct {
	// URL is the endpoint: a URL with no path gets the OTLP default /v1/traces; any
	// other path is used as given (Langfuse's is /api/public/otel/v1/traces).
	URL string
	// Headers go with every request (an API key, basic auth). They are never written
	// into a span.
	Headers map[string]string
	// Insecure allows plain http to a host that is not the loopback interface.
	Insecure bool
	// Gzip compresses request bodies.
	Gzip bool
	// Timeout bounds the whole export, retries included; 30s when zero.
	Timeout time.Duration
	// NoRetry sends each request once: no retry of a 429, 502, 503 or 504.
	NoRetry bool
}

// ParseURL checks an endpoint URL and returns it with its path completed. Credentials
// in the URL are refused (they belong in a header, which is not echoed), and so is
// plain http to a host off the loopback interface without insecure: spans carry a
// run's content.
func ParseURL(raw string, insecure bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want a URL such as http://localhost:4318 or https://otlp.example.com/v1/traces", excerpt(raw, 80))
	}
	switch {
	case u.User != nil:
		return nil, errors.New("endpoint: credentials in the URL are refused; send them with --header (e.g. --header 'Authorization=Basic …')")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("endpoint %q: scheme must be http or https", excerpt(u.Redacted(), 80))
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("endpoint %q: OTLP/HTTP takes no query or fragment", excerpt(u.Redacted(), 80))
	case u.Scheme == "http" && !insecure && !loopback(u.Hostname()):
		return nil, fmt.Errorf("endpoint %q: plain http to another host sends the run in clear text; use https, or --insecure to allow it", excerpt(u.String(), 80))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseHeader splits a KEY=VALUE header argument.
func ParseHeader(kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	switch {
	case !ok:
		// Without "=" the whole argument may be a secret ("Authorization Bearer …").
		return "", "", errors.New("header: want KEY=VALUE (the argument is not echoed: it may hold a secret)")
	case k == "" || strings.ContainsAny(k, " \t\r\n:"):
		return "", "", fmt.Errorf("header %q: want KEY=VALUE with a key of letters, digits and dashes", excerpt(k, 40))
	case strings.ContainsAny(v, "\r\n"):
		// The value may be a secret: the message names the key only.
		return "", "", fmt.Errorf("header %q: its value has a line break", excerpt(k, 40))
	}
	return k, v, nil
}

// ParseHeaders reads KEY=VALUE header arguments (ParseHeader) into a map, nil for none.
func ParseHeaders(kvs []string) (map[string]string, error) {
	var hs map[string]string
	for _, kv := range kvs {
		k, v, err := ParseHeader(kv)
		if err != nil {
			return nil, err
		}
		if hs == nil {
			hs = map[string]string{}
		}
		hs[k] = v
	}
	return hs, nil
}

// Send exports spans to the endpoint in one request. Errors from the endpoint (refused,
// a 4xx or 5xx) are returned with at most an excerpt of what it answered.
func Send(ctx context.Context, ep Endpoint, spans []sdktrace.ReadOnlySpan) error {
	u, err := ParseURL(ep.URL, ep.Insecure)
	if err != nil {
		return err
	}
	timeout := ep.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	opts := []otlptracehttp.Option{
		otlptracehttp.WithEndpointURL(u.String()),
		otlptracehttp.WithTimeout(timeout),
	}
	if len(ep.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(ep.Headers))
	}
	if ep.Gzip {
		opts = append(opts, otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	}
	if ep.NoRetry {
		opts = append(opts, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	} else {
		opts = append(opts, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: time.Second, MaxInterval: 5 * time.Second, MaxElapsedTime: timeout,
		}))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return fmt.Errorf("otlp exporter for %s: %s", u.Redacted(), excerpt(err.Error(), maxText))
	}
	err = exp.ExportSpans(ctx, spans)
	if serr := exp.Shutdown(ctx); err == nil && serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("sending %d spans to %s: %s", len(spans), u.Redacted(), excerpt(err.Error(), maxText))
	}
	return nil
}

// Exported is what ExportFile sent: how many spans, in which trace.
type Exported struct {
	Spans   int
	TraceID oteltrace.TraceID
}

// ExportFile reads the trace at path, hands warn (when set) what Warnings says of it (a
// broken chain, an incomplete recording), converts it and sends its spans. The trace is
// only read; an error sending it names path.
func ExportFile(ctx context.Context, ep Endpoint, path string, opts Options, warn func(string)) (Exported, error) {
	f, err := Read(path)
	if err != nil {
		return Exported{}, err
	}
	if warn != nil {
		for _, w := range Warnings(f) {
			warn(w)
		}
	}
	spans, err := Convert(f, opts)
	if err != nil {
		return Exported{}, err
	}
	if err := Send(ctx, ep, spans); err != nil {
		return Exported{}, fmt.Errorf("%s: %w", path, err)
	}
	h, _ := f.Header()
	return Exported{Spans: len(spans), TraceID: TraceID(h.Run)}, nil
}
