package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// mustLoad compiles an inline rule file or fails the test.
func mustLoad(tb testing.TB, src string) *ruleset.RuleSet {
	tb.Helper()
	rs, err := LoadRules("inline.yaml", []byte(src))
	if err != nil {
		tb.Fatalf("loading the inline rule set: %v", err)
	}
	return rs
}

// memoryRules declares a singleton kind with every field type, a many kind and a kind
// no rule reads.
const memoryRules = `version: 1
name: memory
facts:
  signals:
    fields:
      D: float
      n: int
      ok: bool
      note: string
      tags: strings
  subtask:
    many: true
    fields:
      status: string
      tries: int
  unrelated:
    fields:
      x: int
objectives:
  - name: done
    terminal: success
rules:
  - name: three_subtasks_in_id_order
    salience: 1
    when: |
      len(subtask) == 3 && subtask[0].status == "first"
        && subtask[1].status == "second" && subtask[2].status == "third"
    then: {objective: done}
`

func newMemorySession(t *testing.T, opt ...Option) (*Session, *trace.MemorySink) {
	t.Helper()
	sink := &trace.MemorySink{}
	opt = append([]Option{WithTrace(sink), WithRunID("mem")}, opt...)
	return NewSession(mustLoad(t, memoryRules), opt...), sink
}

func field(t *testing.T, f Fact, name string) any {
	t.Helper()
	v, ok := f.Get(name)
	if !ok {
		t.Fatalf("fact %s/%s has no field %q", f.Kind, f.ID, name)
	}
	return v
}

func TestMemoryAssertUpdateRetract(t *testing.T) {
	s, _ := newMemorySession(t)
	wm := s.Memory()
	f, err := s.Assert("signals", "", ruleset.Fields{"D": 0.5, "n": 3, "ok": true, "note": "hi", "tags": []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "signals" || f.ID != "signals" || f.Rev != 1 {
		t.Errorf("asserted %s/%s rev %d; want signals/signals rev 1 (a singleton's id is its kind)", f.Kind, f.ID, f.Rev)
	}
	u, err := s.Update("signals", "", ruleset.Fields{"n": 4})
	if err != nil {
		t.Fatal(err)
	}
	if u.Rev != 2 || field(t, u, "n") != 4 || field(t, u, "D") != 0.5 || field(t, u, "ok") != true || field(t, u, "note") != "hi" {
		t.Errorf("partial update: rev %d payload %+v; want rev 2, n=4 and the other fields kept", u.Rev, u.Payload)
	}
	if field(t, f, "n") != 3 {
		t.Errorf("the update changed the payload of the fact returned earlier")
	}
	got, ok := s.Get("signals", "signals")
	if !ok || got.Rev != 2 {
		t.Errorf("Get by explicit id = %+v, %v", got, ok)
	}
	if _, err := s.Assert("subtask", "s1", ruleset.Fields{"status": "new"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Assert("unrelated", "", nil); err != nil {
		t.Fatal(err)
	}
	if wm.Rev() != 4 || wm.KindRev("signals") != 2 || wm.KindRev("subtask") != 3 || wm.KindRev("unrelated") != 4 {
		t.Errorf("revisions: global %d signals %d subtask %d unrelated %d; want 4 2 3 4",
			wm.Rev(), wm.KindRev("signals"), wm.KindRev("subtask"), wm.KindRev("unrelated"))
	}
	if wm.KindRev("nope") != 0 || wm.KindRev("objective") != 0 {
		t.Errorf("KindRev of an unknown or untouched kind is not 0")
	}
	if err := s.Retract("subtask", "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get("subtask", "s1"); ok {
		t.Errorf("retracted fact still there")
	}
	if wm.Rev() != 5 || wm.KindRev("subtask") != 5 {
		t.Errorf("retract: global rev %d subtask rev %d; want 5 5", wm.Rev(), wm.KindRev("subtask"))
	}
	if len(s.Query("subtask")) != 0 {
		t.Errorf("Query after retract = %v", s.Query("subtask"))
	}
}

func TestMemoryPut(t *testing.T) {
	s, sink := newMemorySession(t)
	a, err := s.Put("subtask", "x", ruleset.Fields{"status": "new", "tries": 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Put("subtask", "x", ruleset.Fields{"status": "done"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Rev != 1 || b.Rev != 2 || field(t, b, "tries") != 1 || field(t, b, "status") != "done" {
		t.Errorf("put then put: %+v %+v", a, b)
	}
	lines := traceLines(t, sink)
	if !strings.Contains(lines[1], `"kind":"fact_asserted"`) || !strings.Contains(lines[2], `"kind":"fact_updated"`) {
		t.Errorf("Put should trace an assert then an update:\n%s", strings.Join(lines, "\n"))
	}
}

func TestMemoryQueryOrder(t *testing.T) {
	s, _ := newMemorySession(t)
	for _, id := range []string{"c", "a", "b", "aa"} {
		if _, err := s.Assert("subtask", id, ruleset.Fields{"status": id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Assert("signals", "", nil); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range s.Query("subtask") {
		ids = append(ids, f.ID)
	}
	if strings.Join(ids, ",") != "a,aa,b,c" {
		t.Errorf("Query order = %v, want a,aa,b,c", ids)
	}
	if s.Query("nope") != nil {
		t.Errorf("Query of an unknown kind is not nil")
	}
	var all []string
	for _, f := range s.Memory().All() {
		all = append(all, f.Kind+"/"+f.ID)
	}
	if strings.Join(all, ",") != "signals/signals,subtask/a,subtask/aa,subtask/b,subtask/c" {
		t.Errorf("All order = %v, want kinds in declaration order, then ids", all)
	}
}

func TestMemoryErrors(t *testing.T) {
	type hostBad struct {
		D     float64 `json:"D"`
		Color string  `json:"color"`
	}
	cases := []struct {
		name    string
		op      func(s *Session) error
		is      error
		wantMsg string
	}{
		{"assert unknown kind", func(s *Session) error { _, err := s.Assert("nope", "", nil); return err },
			ErrUnknownKind, `unknown fact kind "nope"`},
		{"update unknown kind", func(s *Session) error { _, err := s.Update("nope", "", nil); return err },
			ErrUnknownKind, `unknown fact kind "nope"`},
		{"retract unknown kind", func(s *Session) error { return s.Retract("nope", "x") },
			ErrUnknownKind, `unknown fact kind "nope"`},
		{"duplicate assert", func(s *Session) error { _, err := s.Assert("signals", "", nil); return err },
			ErrFactExists, `fact already asserted: signals/signals`},
		{"update missing", func(s *Session) error { _, err := s.Update("subtask", "zz", nil); return err },
			ErrNoFact, `no such fact: subtask/zz`},
		{"retract missing", func(s *Session) error { return s.Retract("subtask", "zz") },
			ErrNoFact, `no such fact: subtask/zz`},
		{"many kind without id", func(s *Session) error { _, err := s.Assert("subtask", "", nil); return err },
			nil, `kind "subtask" holds many facts: an id is required`},
		{"singleton with another id", func(s *Session) error { _, err := s.Assert("unrelated", "u1", nil); return err },
			nil, `kind "unrelated" holds one fact: its id is "unrelated" or empty, not "u1"`},
		{"wrong field type", func(s *Session) error { _, err := s.Assert("subtask", "n", ruleset.Fields{"tries": "two"}); return err },
			nil, `field "tries" of kind "subtask": want an integer, got two (string)`},
		{"fraction for an int", func(s *Session) error { _, err := s.Assert("subtask", "n", ruleset.Fields{"tries": 1.5}); return err },
			nil, `field "tries" of kind "subtask": want an integer, got 1.5 (float64)`},
		{"string for a bool", func(s *Session) error { _, err := s.Update("signals", "", ruleset.Fields{"ok": "yes"}); return err },
			nil, `field "ok" of kind "signals": want a bool, got string`},
		{"number for a string", func(s *Session) error { _, err := s.Update("signals", "", ruleset.Fields{"note": 1}); return err },
			nil, `field "note" of kind "signals": want a string, got int`},
		{"list of non-strings", func(s *Session) error {
			_, err := s.Update("signals", "", ruleset.Fields{"tags": []any{"a", 2}})
			return err
		},
			nil, `field "tags" of kind "signals": want a list of strings, element 1 is int`},
		{"unknown field", func(s *Session) error { _, err := s.Update("signals", "", ruleset.Fields{"E": 1.0}); return err },
			nil, `kind "signals" has no field "E" (fields: D, n, note, ok, tags)`},
		{"NaN", func(s *Session) error { _, err := s.Update("signals", "", ruleset.Fields{"D": math.NaN()}); return err },
			nil, `field "D" of kind "signals": want a finite number, got NaN`},
		{"infinity", func(s *Session) error {
			_, err := s.Update("signals", "", ruleset.Fields{"D": math.Inf(1)})
			return err
		},
			nil, `field "D" of kind "signals": want a finite number, got +Inf`},
		{"payload not a struct", func(s *Session) error { _, err := s.Update("signals", "", "D=1"); return err },
			nil, `payload of kind "signals" must be ruleset.Fields or a struct, got string`},
		{"struct with an unknown tag", func(s *Session) error { _, err := s.Update("signals", "", hostBad{D: 1}); return err },
			nil, `kind "signals" has no field "color" (from engine.hostBad.Color; fields: D, n, note, ok, tags)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, sink := newMemorySession(t)
			if _, err := s.Assert("signals", "", ruleset.Fields{"D": 0.25}); err != nil {
				t.Fatal(err)
			}
			before, traced := s.Memory().Rev(), len(traceLines(t, sink))
			err := c.op(s)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != c.wantMsg {
				t.Errorf("error = %q, want %q", err, c.wantMsg)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if s.Memory().Rev() != before || len(traceLines(t, sink)) != traced {
				t.Errorf("a failed change moved the revision or wrote a trace event")
			}
			if f, _ := s.Get("signals", ""); field(t, f, "D") != 0.25 {
				t.Errorf("a failed change altered the stored fact: %+v", f.Payload)
			}
		})
	}
}

// hostSignals is how a host program might keep its signals: json tags name the declared
// fields, untagged and unexported fields are handled as encoding/json would.
type hostSignals struct {
	D      float64  `json:"D"`
	Count  int64    `json:"n,omitempty"`
	OK     bool     `json:"ok"`
	Tags   []string `json:"tags"`
	Ignore string   `json:"-"`
	note   string
}

func TestMemoryPayloadForms(t *testing.T) {
	s, _ := newMemorySession(t)
	if _, err := s.Assert("signals", "", hostSignals{D: 0.5, Count: 7, OK: true, Tags: []string{"x"}, Ignore: "skip", note: "private"}); err != nil {
		t.Fatal(err)
	}
	f, _ := s.Get("signals", "")
	if field(t, f, "D") != 0.5 || field(t, f, "n") != 7 || field(t, f, "ok") != true || field(t, f, "note") != "" {
		t.Errorf("struct payload stored as %+v", f.Payload)
	}
	// A struct update writes every tagged field, zero values included.
	if _, err := s.Update("signals", "", &hostSignals{D: 0.75}); err != nil {
		t.Fatal(err)
	}
	f, _ = s.Get("signals", "")
	if field(t, f, "D") != 0.75 || field(t, f, "n") != 0 || field(t, f, "ok") != false || field(t, f, "tags") != nil && len(field(t, f, "tags").([]string)) != 0 {
		t.Errorf("struct update stored %+v; want every tagged field written", f.Payload)
	}
	// A plain map works like Fields; numbers may be any numeric type or json.Number.
	if _, err := s.Update("signals", "", map[string]any{"n": uint8(9), "D": json.Number("0.125"), "tags": []any{"p", "q"}}); err != nil {
		t.Fatal(err)
	}
	f, _ = s.Get("signals", "")
	if field(t, f, "n") != 9 || field(t, f, "D") != 0.125 || strings.Join(field(t, f, "tags").([]string), ",") != "p,q" {
		t.Errorf("map update stored %+v", f.Payload)
	}
	// The stored list is a copy: changing the caller's slice afterwards changes nothing.
	tags := []string{"m"}
	if _, err := s.Update("signals", "", ruleset.Fields{"tags": tags}); err != nil {
		t.Fatal(err)
	}
	tags[0] = "changed"
	f, _ = s.Get("signals", "")
	if field(t, f, "tags").([]string)[0] != "m" {
		t.Errorf("the fact shares the caller's slice")
	}
	// A nil pointer and a nil payload change nothing but the revision.
	before := f.Rev
	var nilHost *hostSignals
	g, err := s.Update("signals", "", nilHost)
	if err != nil || g.Rev != before+1 || field(t, g, "D") != 0.125 {
		t.Errorf("nil pointer update: %+v, %v", g, err)
	}
	// The kind's own payload type, as read from a fact, can be stored back.
	if _, err := s.Assert("subtask", "a", ruleset.Fields{"status": "x", "tries": 2}); err != nil {
		t.Fatal(err)
	}
	a, _ := s.Get("subtask", "a")
	if _, err := s.Assert("subtask", "b", a.Payload); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Get("subtask", "b")
	if field(t, b, "status") != "x" || field(t, b, "tries") != 2 {
		t.Errorf("copying a payload gave %+v", b.Payload)
	}
}

// TestMemoryManyKindAsList checks that rules see a many kind as a list ordered by id,
// whatever the order the facts were asserted in.
func TestMemoryManyKindAsList(t *testing.T) {
	s, _ := newMemorySession(t)
	for _, p := range [][2]string{{"s3", "third"}, {"s1", "first"}, {"s2", "second"}} {
		if _, err := s.Assert("subtask", p[0], ruleset.Fields{"status": p[1]}); err != nil {
			t.Fatal(err)
		}
	}
	cyc, err := s.Cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cyc.Fired != "three_subtasks_in_id_order" {
		t.Errorf("fired %q; the rule expects the list ordered by id: %+v", cyc.Fired, cyc.Evaluated)
	}
	if err := s.Retract("subtask", "s2"); err != nil {
		t.Fatal(err)
	}
	cyc, err = s.Cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cyc.Fired != "" || cyc.Evaluated[0].Result != ResultFalse {
		t.Errorf("after a retract the list should hold two facts: %+v", cyc)
	}
}

// TestMemoryTrace checks the trace event of every kind of change, line by line.
func TestMemoryTrace(t *testing.T) {
	s, sink := newMemorySession(t)
	mustDo := func(_ Fact, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDo(s.Assert("signals", "", ruleset.Fields{"D": 0.5, "tags": []string{"x"}}))
	mustDo(s.Update("signals", "", ruleset.Fields{"n": 2}))
	mustDo(s.Put("subtask", "b", ruleset.Fields{"status": "new"}))
	mustDo(s.Put("subtask", "b", ruleset.Fields{"tries": 1}))
	mustDo(Fact{}, s.Retract("subtask", "b"))
	want := []string{
		`{"seq":2,"t":"2000-01-01T00:00:00.001Z","kind":"fact_asserted","fact":{"kind":"signals","id":"signals","rev":1,"payload":{"D":0.5,"n":0,"ok":false,"note":"","tags":["x"]}}}`,
		`{"seq":3,"t":"2000-01-01T00:00:00.002Z","kind":"fact_updated","fact":{"kind":"signals","id":"signals","rev":2,"payload":{"D":0.5,"n":2,"ok":false,"note":"","tags":["x"]}}}`,
		`{"seq":4,"t":"2000-01-01T00:00:00.003Z","kind":"fact_asserted","fact":{"kind":"subtask","id":"b","rev":3,"payload":{"status":"new","tries":0}}}`,
		`{"seq":5,"t":"2000-01-01T00:00:00.004Z","kind":"fact_updated","fact":{"kind":"subtask","id":"b","rev":4,"payload":{"status":"new","tries":1}}}`,
		`{"seq":6,"t":"2000-01-01T00:00:00.005Z","kind":"fact_retracted","fact":{"kind":"subtask","id":"b","rev":5,"payload":{"status":"new","tries":1}}}`,
	}
	lines := traceLines(t, sink)
	if !strings.HasPrefix(lines[0], `{"seq":1,"t":"2000-01-01T00:00:00Z","kind":"header","format":"spine-trace/2","run":"mem","rules":{"name":"memory","path":"inline.yaml","hash":"sha256:`) {
		t.Errorf("header line = %s", lines[0])
	}
	if got := strings.Join(lines[1:], "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// traceLines splits a memory sink's trace into lines, each checked to be a JSON object
// and the whole checked to chain, and returns them without their h.
func traceLines(t *testing.T, sink *trace.MemorySink) []string {
	t.Helper()
	b := sink.Bytes()
	if _, err := trace.VerifyChain(bytes.NewReader(b)); err != nil {
		t.Fatalf("trace does not chain: %v", err)
	}
	text := strings.TrimSuffix(string(b), "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("trace line %d is not a JSON object: %v\n%s", i+1, err, l)
		}
		content, _, ok := splitChained([]byte(l))
		if !ok {
			t.Fatalf("trace line %d has no h at its end:\n%s", i+1, l)
		}
		lines[i] = string(content)
	}
	return lines
}
