package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// checkTyped reads a trace the engine wrote with package trace's decoder and writes its
// events again from their typed bodies alone: every kind has its type, and the bytes,
// hash chain included, are the engine's. It returns the kinds seen.
func checkTyped(t *testing.T, name string, b []byte) map[string]bool {
	t.Helper()
	f, err := tr.Read(name, bytes.NewReader(b))
	if err != nil || f.Torn != nil {
		t.Fatalf("%s: read: %v (torn %v)", name, err, f.Torn)
	}
	kinds := map[string]bool{}
	again := &tr.MemorySink{}
	for i := range f.Events {
		e := &f.Events[i]
		kinds[e.Kind] = true
		if _, known := tr.DecodeBodyKinds[e.Kind]; known {
			if _, raw := e.Body.(json.RawMessage); raw {
				t.Fatalf("%s:%d: %s decoded raw", name, e.Line, e.Kind)
			}
		}
		if err := again.Write(&tr.Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: e.Body}); err != nil {
			t.Fatalf("%s:%d: %v", name, e.Line, err)
		}
	}
	if d := TraceDiff(b, again.Bytes()); d != "" {
		t.Fatalf("%s: written again from its typed bodies, the trace differs: %s", name, d)
	}
	return kinds
}

// TestEngineWritesEveryKindTyped runs the engine through every event kind it and its
// hosts write (journalled exchanges and messages, reloads good and bad, a rule's failed
// action, a refused host event, an audit finding after the halt), and checks each
// trace against package trace's types.
func TestEngineWritesEveryKindTyped(t *testing.T) {
	seen := map[string]bool{}
	note := func(k map[string]bool) {
		for kind := range k {
			seen[kind] = true
		}
	}

	chained, _ := chainedRun(t) // exchange and message inside effector calls
	note(checkTyped(t, "chained", chained))

	rs, err := LoadRules("reload.yaml", []byte(reloadRules))
	if err != nil {
		t.Fatal(err)
	}
	lower := strings.Replace(reloadRules, "goal: 3", "goal: 2", 1)
	sink := &tr.MemorySink{}
	eng := NewEngine(rs, &counter{}, WithTrace(sink),
		WithRuleSource(&scriptedSource{polls: [][]byte{[]byte("rules: [oops"), []byte(lower)}}),
		WithEpilogue(func(emit func(string, any)) {
			emit(tr.KindAudit, tr.Audit{Finding: contract.AuditReport{Kind: "clean", Severity: "info", Message: "ok", Evidence: []int64{3}}})
			emit(tr.KindMemoryLost, tr.MemoryLost{Store: "mem", Sent: 2, Stored: 1, Lost: []tr.MemoryLostItem{{ID: "m-1", Error: "no space left on device"}}})
			emit(tr.KindResumed, tr.Resumed{Mode: "resume", From: "run.jsonl", Line: 7, FromSeq: 7, Stopped: "killed"})
			emit("note", []int{1}) // not an object: an emit_error
		}))
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	note(checkTyped(t, "reload", sink.Bytes()))

	rs = mustLoad(t, `version: 1
facts:
  note: {fields: {text: string}}
  item: {many: true, fields: {status: string}}
objectives: [{name: go}]
rules:
  - name: act
    salience: 1
    when: note != nil
    then:
      objective: go
      retract: [{kind: item, id: old}, {kind: item, id: never_there}]
`)
	sink = &tr.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	if err := s.Set("note", "", ruleset.Fields{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("item", "old", ruleset.Fields{"status": "stale"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	note(checkTyped(t, "rule_error", sink.Bytes()))

	var missing []string
	for kind := range tr.DecodeBodyKinds {
		// A signature line is written by the file sink after the engine's last line
		// (trace.FileSink.Sign), never by the engine; package trace tests it.
		if !seen[kind] && kind != tr.KindSignature {
			missing = append(missing, kind)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no run wrote %s", strings.Join(missing, ", "))
	}
}

// unencodable journals an exchange whose request cannot be encoded.
type unencodable struct{ finishing }

func (u *unencodable) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	JournalFrom(ctx).Record(Exchange{Name: "tool:x", Request: func() {}})
	return Construct{ID: "c"}, nil
}

// An exchange that does not encode is the trace's error, as a body the sink cannot
// encode: it takes its seq, is not written, and stops the run; a discarded trace does
// not encode it at all.
func TestUnencodableExchangeStopsTheRun(t *testing.T) {
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	sink := &tr.MemorySink{}
	_, err = NewEngine(rs, &unencodable{}, WithTrace(sink)).Run(context.Background())
	const want = "trace: encoding exchange event: json: unsupported type: func()"
	if err == nil || err.Error() != want {
		t.Fatalf("run error %v, want %s", err, want)
	}
	f, rerr := tr.Read("t", bytes.NewReader(sink.Bytes()))
	if rerr != nil {
		t.Fatal(rerr)
	}
	gap := false
	for i := 1; i < len(f.Events); i++ {
		if f.Events[i].Seq == f.Events[i-1].Seq+2 && f.Events[i-1].Kind == tr.KindEffectorCall {
			gap = true
		}
	}
	if !gap {
		t.Errorf("no seq left for the exchange that was not written after its effector_call")
	}
	if _, err := NewEngine(rs, &unencodable{}).Run(context.Background()); err != nil {
		t.Errorf("with the trace discarded: %v", err)
	}
}
