package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentspine/spine/spine/trace"
)

// Scope is the instrumentation scope of the spans this package makes.
const Scope = "github.com/agentspine/spine/telemetry"

// Options shape the conversion.
type Options struct {
	// Provider is gen_ai.provider.name on model calls; "openai" when empty, as spine
	// speaks the OpenAI chat API to every endpoint.
	Provider string
	// ServiceName is the resource's service.name; "spine" when empty.
	ServiceName string
	// Content adds what was said: each model call's input and output messages
	// (gen_ai.input.messages, gen_ai.output.messages) and each tool call's arguments and
	// output (gen_ai.tool.call.arguments, gen_ai.tool.call.result). Off, spans carry
	// metadata only.
	Content bool
}

func (o Options) provider() string {
	if o.Provider == "" {
		return "openai"
	}
	return o.Provider
}

// Spans reads the trace file at path (see Read) and converts it (see Convert).
func Spans(path string, opts Options) ([]sdktrace.ReadOnlySpan, error) {
	f, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Convert(f, opts)
}

// Convert turns a read trace into OpenTelemetry spans, children before their parents.
// The same trace gives the same spans: ids, times and attributes all come from it.
func Convert(f *trace.File, opts Options) ([]sdktrace.ReadOnlySpan, error) {
	root, err := plan(f, opts)
	if err != nil {
		return nil, err
	}
	h, _ := f.Header()
	col := &collector{}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(newResource(opts)),
		// Raw limits: none from the environment, and a long run's events all kept.
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit:   -1,
			AttributeValueDepthLimit:    -1,
			AttributeCountLimit:         -1,
			EventCountLimit:             -1,
			LinkCountLimit:              -1,
			AttributePerEventCountLimit: -1,
			AttributePerLinkCountLimit:  -1,
		}),
		sdktrace.WithSpanProcessor(col),
	)
	tr := tp.Tracer(Scope)
	emit(context.Background(), tr, TraceID(h.Run), root)
	// Nothing is exported through the provider; shutting it down only releases it.
	_ = tp.Shutdown(context.Background())
	return col.spans, nil
}

func newResource(opts Options) *resource.Resource {
	name := opts.ServiceName
	if name == "" {
		name = "spine"
	}
	return resource.NewSchemaless(attribute.String("service.name", name))
}

// emit starts s under ctx's span with its recorded start, adds its events and
// children, and ends it at its recorded end.
func emit(ctx context.Context, tr oteltrace.Tracer, tid oteltrace.TraceID, s *span) {
	ctx = context.WithValue(ctx, idKey{}, ids{trace: tid, span: spanID(tid, s.key)})
	kind := s.kind
	if kind == oteltrace.SpanKindUnspecified {
		kind = oteltrace.SpanKindInternal
	}
	ctx, sp := tr.Start(ctx, s.name,
		oteltrace.WithTimestamp(s.start),
		oteltrace.WithSpanKind(kind),
		oteltrace.WithAttributes(s.attrs...))
	for _, e := range s.events {
		sp.AddEvent(e.name, oteltrace.WithTimestamp(e.t), oteltrace.WithAttributes(e.attrs...))
	}
	for _, c := range s.children {
		emit(ctx, tr, tid, c)
	}
	if s.status != 0 {
		sp.SetStatus(s.status, s.statusMsg)
	}
	sp.End(oteltrace.WithTimestamp(s.end))
}

// collector is a span processor that keeps every ended span, in the order they end.
type collector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collector) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}
func (c *collector) Shutdown(context.Context) error   { return nil }
func (c *collector) ForceFlush(context.Context) error { return nil }
