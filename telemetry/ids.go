package telemetry

import (
	"context"
	"crypto/sha256"

	oteltrace "go.opentelemetry.io/otel/trace"
)

// TraceID is the OpenTelemetry trace id of run: the first 16 bytes of a SHA-256 of the
// run id, so every export of one run lands in one trace.
func TraceID(run string) oteltrace.TraceID {
	sum := sha256.Sum256([]byte("spine/run\x00" + run))
	var id oteltrace.TraceID
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[15] = 1
	}
	return id
}

// spanID derives a span's id from its trace id and its key (the span's type and the
// seq of the event that opened it).
func spanID(tid oteltrace.TraceID, key string) oteltrace.SpanID {
	h := sha256.New()
	h.Write(tid[:])
	h.Write([]byte(key))
	var id oteltrace.SpanID
	copy(id[:], h.Sum(nil))
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// idKey carries the ids of the span about to start to idGenerator.
type idKey struct{}

type ids struct {
	trace oteltrace.TraceID
	span  oteltrace.SpanID
}

// idGenerator hands the SDK the ids the conversion derived, instead of random ones.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (oteltrace.TraceID, oteltrace.SpanID) {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.trace, v.span
}

func (idGenerator) NewSpanID(ctx context.Context, _ oteltrace.TraceID) oteltrace.SpanID {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.span
}
