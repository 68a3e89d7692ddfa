// Package telemetry turns a recorded spine trace into OpenTelemetry spans and sends them
// to an OTLP/HTTP endpoint (Jaeger, Grafana Tempo, Langfuse, Phoenix, a collector).
//
// A run becomes one span tree: the run, its rounds (one per GGS iteration), the roles
// that acted in a round (R1 … R4b, R7), and under them each model call and tool call.
// Model calls carry the GenAI semantic conventions (gen_ai.*); rule firings, conflict
// sets, loop transitions and macro-states (the objective a rule chose) are span events.
//
// Everything comes from the trace: start and end times from event times and recorded
// durations, the trace id from the run id, each span id from the seq of the event that
// opened it. Converting or exporting the same trace twice gives the same spans, and the
// conversion reads no clock. The package reads traces; it never writes or changes one,
// and it puts nothing in an attribute that the trace does not hold (endpoint headers
// and tokens stay in the exporter).
package telemetry
