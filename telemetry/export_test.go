package telemetry

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentspine/spine/telemetry/otlptest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden span trees under testdata/")

// traces are the recorded runs the tests export: every fixture, and a live run with a
// retried model call.
func traces(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"retries": "../cmd/spine/testdata/traceshow/retries.trace.jsonl"}
	paths, err := filepath.Glob("../fixtures/*/*.trace.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture traces: %v", err)
	}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p)) + "_" + strings.TrimSuffix(filepath.Base(p), ".trace.jsonl")
		out[name] = p
	}
	return out
}

func export(t *testing.T, rcv *otlptest.Receiver, path string, ep Endpoint) {
	t.Helper()
	ep.URL, ep.NoRetry = rcv.URL(), true
	if _, err := ExportFile(context.Background(), ep, path, Options{}, nil); err != nil {
		t.Fatalf("export %s: %v", path, err)
	}
}

// TestExportGolden sends every recorded run to a receiver and compares the span tree
// it decoded with testdata/<name>.tree.
func TestExportGolden(t *testing.T) {
	for name, path := range traces(t) {
		t.Run(name, func(t *testing.T) {
			rcv := otlptest.New()
			defer rcv.Close()
			export(t, rcv, path, Endpoint{})
			got := render(t, rcv.Spans())
			golden := filepath.Join("testdata", name+".tree")
			if *rewrite {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -rewrite to create it)", err)
			}
			if got != string(want) {
				t.Errorf("span tree of %s differs from %s (run with -rewrite and review the diff):\n%s", path, golden, got)
			}
		})
	}
}

// TestExportTwiceSameSpans: ids, times and attributes come from the trace, so two
// exports of one trace send equal requests, gzip or not.
func TestExportTwiceSameSpans(t *testing.T) {
	for name, path := range traces(t) {
		t.Run(name, func(t *testing.T) {
			rcv := otlptest.New()
			defer rcv.Close()
			export(t, rcv, path, Endpoint{})
			export(t, rcv, path, Endpoint{Gzip: true})
			reqs := rcv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if reqs[0].Gzip || !reqs[1].Gzip {
				t.Errorf("gzip on the requests: %v, %v; want false, true", reqs[0].Gzip, reqs[1].Gzip)
			}
			if !proto.Equal(reqs[0].Payload, reqs[1].Payload) {
				t.Errorf("the two exports of %s differ", path)
			}
		})
	}
}

// TestModelAndToolSpans checks the GenAI attributes of one model call and one tool call
// of the pipeline fixture, and the tree they hang in, by name.
func TestModelAndToolSpans(t *testing.T) {
	rcv := otlptest.New()
	defer rcv.Close()
	export(t, rcv, "../fixtures/pipeline/change_path_then_accept.trace.jsonl", Endpoint{})
	spans := rcv.Spans()
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[string(s.SpanId)] = s
	}
	path := func(s *tracepb.Span) string {
		var names []string
		for ; s != nil; s = byID[string(s.ParentSpanId)] {
			names = append([]string{s.Name}, names...)
		}
		return strings.Join(names, " > ")
	}
	find := func(seq int64) *tracepb.Span {
		for _, s := range spans {
			if v, ok := attr(s.Attributes, "spine.seq"); ok && v == seq {
				return s
			}
		}
		t.Fatalf("no span for seq %d", seq)
		return nil
	}
	tid := TraceID("pipeline_change_path_then_accept")
	for _, s := range spans {
		if string(s.TraceId) != string(tid[:]) {
			t.Fatalf("span %s has trace id %x, want %x", s.Name, s.TraceId, tid[:])
		}
	}

	llm := find(12)
	if got, want := path(llm), "spine run > round 1 > invoke_agent R1 > chat model-r1"; got != want {
		t.Errorf("model call's place: %s, want %s", got, want)
	}
	if llm.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("model call kind %v, want client", llm.Kind)
	}
	for key, want := range map[string]any{
		"gen_ai.operation.name":          "chat",
		"gen_ai.provider.name":           "openai",
		"gen_ai.request.model":           "model-r1",
		"gen_ai.response.model":          "model-r1",
		"gen_ai.usage.input_tokens":      int64(0),
		"gen_ai.usage.output_tokens":     int64(0),
		"gen_ai.response.finish_reasons": []any{"stop"},
		"spine.llm.attempts":             int64(1),
	} {
		got, ok := attr(llm.Attributes, key)
		if !ok || !equalValue(got, want) {
			t.Errorf("model call %s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	// The recorded end is the event's time, the start its duration (1000 ms) before.
	if d := time.Duration(llm.EndTimeUnixNano - llm.StartTimeUnixNano); d != time.Second {
		t.Errorf("model call lasts %v, want the recorded 1s", d)
	}

	tool := find(19)
	if got, want := path(tool), "spine run > round 1 > invoke_agent R3 > execute_tool read_file"; got != want {
		t.Errorf("tool call's place: %s, want %s", got, want)
	}
	for key, want := range map[string]any{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      "read_file",
		"gen_ai.tool.call.id":   "call-1",
		"spine.tool.target":     "config/settings.yaml",
		"spine.tool.exit_code":  int64(1),
	} {
		got, ok := attr(tool.Attributes, key)
		if !ok || !equalValue(got, want) {
			t.Errorf("tool call %s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if tool.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("a tool call that exited 1 has status %v, want error", tool.Status.GetCode())
	}
}

// TestRetriedModelCall: a call that got a 429 first says so.
func TestRetriedModelCall(t *testing.T) {
	spans, err := Spans("../cmd/spine/testdata/traceshow/retries.trace.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		if s.Name() != "chat m-R2" {
			continue
		}
		for _, a := range s.Attributes() {
			if a.Key == "spine.llm.retry_causes" {
				if got := a.Value.AsStringSlice(); len(got) != 1 || got[0] != "HTTP 429" {
					t.Errorf("retry causes %q, want [HTTP 429]", got)
				}
				return
			}
		}
		t.Fatalf("chat m-R2 has no spine.llm.retry_causes: %v", s.Attributes())
	}
	t.Fatal("no span chat m-R2")
}

// TestHeadersStayOut: headers reach the endpoint and never a span.
func TestHeadersStayOut(t *testing.T) {
	rcv := otlptest.New()
	defer rcv.Close()
	const token = "Bearer sk-test-4f9a0c"
	export(t, rcv, "../fixtures/pipeline/change_path_then_accept.trace.jsonl",
		Endpoint{Headers: map[string]string{"Authorization": token}})
	reqs := rcv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != token {
		t.Fatalf("the endpoint did not get the Authorization header")
	}
	raw, err := proto.Marshal(reqs[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-test-4f9a0c") {
		t.Error("the token is in the spans")
	}
}

// attr is the Go value of the attribute key: string, int64, float64, bool or []any.
func attr(attrs []*commonpb.KeyValue, key string) (any, bool) {
	for _, a := range attrs {
		if a.Key == key {
			return goValue(a.Value), true
		}
	}
	return nil, false
}

func goValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		out := make([]any, len(x.ArrayValue.Values))
		for i, e := range x.ArrayValue.Values {
			out[i] = goValue(e)
		}
		return out
	}
	return nil
}

func equalValue(got, want any) bool {
	return fmt.Sprint(got) == fmt.Sprint(want) && fmt.Sprintf("%T", got) == fmt.Sprintf("%T", want)
}
