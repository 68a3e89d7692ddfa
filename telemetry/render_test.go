package telemetry

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// render draws received spans as an indented tree, children by start time: name,
// kind, times in ms from the root's start, status, attributes and events in order. It
// fails the test when the spans are not one tree of one trace.
func render(t *testing.T, spans []*tracepb.Span) string {
	t.Helper()
	byID := map[string]*tracepb.Span{}
	kids := map[string][]*tracepb.Span{}
	var roots []*tracepb.Span
	for _, s := range spans {
		id := hex.EncodeToString(s.SpanId)
		if _, dup := byID[id]; dup {
			t.Fatalf("span id %s sent twice (%s)", id, s.Name)
		}
		byID[id] = s
		if !bytes.Equal(s.TraceId, spans[0].TraceId) {
			t.Fatalf("span %s: trace id %x, want %x like the others", s.Name, s.TraceId, spans[0].TraceId)
		}
	}
	for _, s := range spans {
		if len(s.ParentSpanId) == 0 {
			roots = append(roots, s)
			continue
		}
		p := hex.EncodeToString(s.ParentSpanId)
		if byID[p] == nil {
			t.Fatalf("span %s: parent %s was not sent", s.Name, p)
		}
		kids[p] = append(kids[p], s)
	}
	if len(roots) != 1 {
		t.Fatalf("%d root spans, want 1", len(roots))
	}
	root := roots[0]
	var b strings.Builder
	var walk func(s *tracepb.Span, depth int)
	walk = func(s *tracepb.Span, depth int) {
		ind := strings.Repeat("  ", depth)
		if s.StartTimeUnixNano > s.EndTimeUnixNano {
			t.Errorf("span %s ends before it starts", s.Name)
		}
		if p := byID[hex.EncodeToString(s.ParentSpanId)]; p != nil && (s.StartTimeUnixNano < p.StartTimeUnixNano || s.EndTimeUnixNano > p.EndTimeUnixNano) {
			t.Errorf("span %s is not within its parent %s", s.Name, p.Name)
		}
		fmt.Fprintf(&b, "%s%s (%s) %s..%s", ind, s.Name, strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
			ms(s.StartTimeUnixNano, root), ms(s.EndTimeUnixNano, root))
		if s.Status != nil && s.Status.Code != tracepb.Status_STATUS_CODE_UNSET {
			fmt.Fprintf(&b, " %s", strings.TrimPrefix(s.Status.Code.String(), "STATUS_CODE_"))
			if s.Status.Message != "" {
				fmt.Fprintf(&b, " %q", s.Status.Message)
			}
		}
		b.WriteString("\n")
		for _, a := range s.Attributes {
			fmt.Fprintf(&b, "%s    %s=%s\n", ind, a.Key, value(a.Value))
		}
		for _, e := range s.Events {
			fmt.Fprintf(&b, "%s  · %s @%s", ind, e.Name, ms(e.TimeUnixNano, root))
			for _, a := range e.Attributes {
				fmt.Fprintf(&b, " %s=%s", a.Key, value(a.Value))
			}
			b.WriteString("\n")
		}
		cs := kids[hex.EncodeToString(s.SpanId)]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].StartTimeUnixNano < cs[j].StartTimeUnixNano })
		for _, c := range cs {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return b.String()
}

func ms(ns uint64, root *tracepb.Span) string {
	return fmt.Sprintf("%+.3fms", (float64(ns)-float64(root.StartTimeUnixNano))/1e6)
}

func value(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return fmt.Sprintf("%q", x.StringValue)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, len(x.ArrayValue.Values))
		for i, e := range x.ArrayValue.Values {
			parts[i] = value(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%v", v)
}
