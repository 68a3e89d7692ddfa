package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/telemetry"
)

const traceOTLPLong = `Send recorded traces to an OpenTelemetry backend over OTLP/HTTP (protobuf): a
collector, Jaeger, Grafana Tempo, Langfuse, Phoenix. Each run is one trace: a span for
the run, one per round, one per role's turn (R1 … R4b, R7), and under them one per
model call (with the GenAI conventions: gen_ai.operation.name, gen_ai.provider.name,
gen_ai.request.model, gen_ai.usage.input_tokens and output_tokens,
gen_ai.response.finish_reasons) and per tool call. Rule firings, conflict sets, loop
transitions and macro-states are span events. Ids and times come from the trace, so
sending a trace twice sends the same spans. Prompts, replies and tool output are sent
only with --content.

--endpoint is the receiver's URL; with no path, /v1/traces is added (Jaeger, Tempo and
collectors listen on port 4318). Plain http is taken for localhost only unless
--insecure. Headers (--header KEY=VALUE, repeatable; else $OTEL_EXPORTER_OTLP_HEADERS)
carry credentials and are never put into a span.

Exit status: 0 when every trace was sent, 1 when one could not be read or the endpoint
refused it (the trace file is only read, never changed), 2 for a wrong command line.`

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		var (
			o       otlpFlags
			headers []string
			content bool
		)
		c := &cobra.Command{
			Use:   "otlp --endpoint URL [flags] TRACE...",
			Short: "send traces to an OpenTelemetry backend (Jaeger, Tempo, Langfuse, Phoenix) over OTLP/HTTP",
			Long:  traceOTLPLong,
			Args:  cobra.MinimumNArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				ep, err := o.endpoint(headers)
				if err != nil {
					return err
				}
				return cli.Exit(runTraceOTLP(c.Context(), io, ep, telemetry.Options{Content: content}, args))
			},
		}
		fs := c.Flags()
		fs.StringVar(&o.url, "endpoint", "", "OTLP/HTTP `URL`, e.g. http://localhost:4318 or https://cloud.langfuse.com/api/public/otel/v1/traces")
		fs.StringArrayVar(&headers, "header", nil, "HTTP header `KEY=VALUE` sent with every request, e.g. Authorization=Bearer… (repeatable)")
		fs.BoolVar(&o.insecure, "insecure", false, "allow plain http to a host other than localhost")
		fs.BoolVar(&o.gzip, "gzip", false, "compress requests with gzip")
		fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "give up on a trace after this long, retries included")
		fs.BoolVar(&content, "content", false, "also send what was said: each model call's messages and each tool call's arguments and output (gen_ai.input.messages, gen_ai.output.messages, gen_ai.tool.call.arguments, gen_ai.tool.call.result)")
		return c
	})
}

// otlpFlags are trace otlp's endpoint flags.
type otlpFlags struct {
	url      string
	insecure bool
	gzip     bool
	timeout  time.Duration
}

// endpoint checks the flags; what is wrong is a usage error naming the flag. A header's
// value is never echoed.
func (o otlpFlags) endpoint(headers []string) (telemetry.Endpoint, error) {
	if o.url == "" {
		return telemetry.Endpoint{}, cli.Usagef("--endpoint URL is required")
	}
	if _, err := telemetry.ParseURL(o.url, o.insecure); err != nil {
		return telemetry.Endpoint{}, cli.Usagef("--endpoint: %v", err)
	}
	if o.timeout <= 0 {
		return telemetry.Endpoint{}, cli.Usagef("--timeout %v: expected a positive duration", o.timeout)
	}
	ep := telemetry.Endpoint{URL: o.url, Insecure: o.insecure, Gzip: o.gzip, Timeout: o.timeout}
	var err error
	if ep.Headers, err = telemetry.ParseHeaders(headers); err != nil {
		return telemetry.Endpoint{}, cli.Usagef("--header: %v", err)
	}
	return ep, nil
}

// runTraceOTLP sends each trace in turn; one that fails does not stop the others.
func runTraceOTLP(ctx context.Context, io stdio, ep telemetry.Endpoint, opts telemetry.Options, paths []string) int {
	code := exitOK
	for _, p := range paths {
		if err := sendTrace(ctx, io, ep, opts, p, true); err != nil {
			fmt.Fprintf(io.err, "spine trace otlp: %v\n", err)
			code = exitFail
		}
	}
	return code
}

// sendTrace sends one trace (telemetry.ExportFile), says what was sent when say is set,
// and warns of a broken chain or an incomplete recording.
func sendTrace(ctx context.Context, io stdio, ep telemetry.Endpoint, opts telemetry.Options, path string, say bool) error {
	sent, err := telemetry.ExportFile(ctx, ep, path, opts, func(w string) { warn(io, w) })
	if err == nil && say {
		fmt.Fprintf(io.out, "%s: %d spans sent, trace id %s\n", path, sent.Spans, sent.TraceID)
	}
	return err
}

// sendRunTrace is spine run --otlp: once the run has ended and its trace is closed, send
// it. A failure is said on stderr and makes the exit status 1; the trace stays where it
// was written, to be sent again with spine trace otlp.
func sendRunTrace(ctx context.Context, io stdio, url, path string, asJSON bool, code int) int {
	if url == "" || path == "" {
		return code
	}
	ep := telemetry.Endpoint{URL: url}
	if err := sendTrace(ctx, io, ep, telemetry.Options{}, path, !asJSON); err != nil {
		fmt.Fprintf(io.err, "spine run: --otlp: %v\n(the trace is kept; send it later with: spine trace otlp --endpoint %s %s)\n", err, url, path)
		return exitFail
	}
	return code
}
