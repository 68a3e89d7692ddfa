package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// engineTraces are traces the engine wrote: the fixtures, the engine's goldens and the
// viewer's recorded run. Each must decode into typed bodies that encode back to the
// same bytes.
func engineTraces(tb testing.TB) []string {
	tb.Helper()
	var paths []string
	for _, glob := range []string{
		"../../fixtures/*/*.trace.jsonl",
		"../engine/testdata/engine/*.jsonl",
		"../engine/testdata/oldheader/*.jsonl",
		"../../cmd/spine/testdata/traceshow/*.trace.jsonl",
	} {
		m, err := filepath.Glob(glob)
		if err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 20 {
		tb.Fatalf("found only %d engine traces: %v", len(paths), paths)
	}
	sort.Strings(paths)
	return paths
}

// TestRoundTrip reads every engine trace, checks that each event's body is its kind's
// type, and writes the events again through a MemorySink: the bytes, hash chain
// included, are the file's.
func TestRoundTrip(t *testing.T) {
	seen := map[string]string{}
	for _, path := range engineTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.ChainErr != nil || f.Torn != nil {
				t.Fatalf("chain %v, torn %v", f.ChainErr, f.Torn)
			}
			var sink MemorySink
			for i := range f.Events {
				e := &f.Events[i]
				if _, raw := e.Body.(json.RawMessage); raw {
					t.Errorf("line %d: kind %s decoded raw; every kind the engine writes has a type", e.Line, e.Kind)
				}
				seen[e.Kind] = fmt.Sprintf("%T", e.Body)
				// The body alone, not the raw line, is what is encoded.
				out := Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: e.Body}
				if err := sink.Write(&out); err != nil {
					t.Fatalf("line %d: %v", e.Line, err)
				}
			}
			if f.Chain.Chained {
				if got := sink.Bytes(); !bytes.Equal(got, want) {
					t.Fatalf("written again, the trace differs at %s", firstDiff(got, want))
				}
				return
			}
			// An unchained trace's header says so; its lines are the chained ones without h.
			if got := UnchainedTrace(sink.Bytes()); !bytes.Equal(got, want) {
				t.Fatalf("written again, the unchained trace differs at %s", firstDiff(got, want))
			}
		})
	}
	for _, k := range []string{KindHeader, KindFactAsserted, KindFactUpdated, KindConflictSet, KindRuleFired,
		KindTransition, KindEffectorCall, KindEffectorResult, KindExchange, KindMessage, KindHalt} {
		if seen[k] == "" {
			t.Errorf("no engine trace has a %s event; the round trip does not cover it", k)
		}
	}
}

func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got %.400s\nwant %.400s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("length: got %d lines, want %d", len(la), len(lb))
}

// everyKind is one line of every kind, as the writer writes it (no h): the inventory
// of the trace's event shapes, with the type each decodes into.
var everyKind = []struct {
	line string
	body any
}{
	{`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header","format":"spine-trace/2","run":"r1","rules":{"name":"ggs","path":"rules/ggs.yaml","hash":"sha256:ab","source":"name: ggs\n"},"params":{"delta":0.1,"n":3},"meta":{"task":"t1"},"limits":{"max_iterations":8,"max_firings":64}}`,
		Header{Format: Format, Run: "r1", Rules: RulesRef{Name: "ggs", Path: "rules/ggs.yaml", Hash: "sha256:ab", Source: "name: ggs\n"},
			Params: json.RawMessage(`{"delta":0.1,"n":3}`), Meta: map[string]string{"task": "t1"}, Limits: Limits{MaxIterations: 8, MaxFirings: 64}}},
	{`{"seq":2,"t":"2026-01-01T00:00:00.001Z","kind":"fact_asserted","fact":{"kind":"signals","id":"signals","rev":1,"payload":{"D":0.5}}}`,
		FactChange{Fact{Kind: "signals", ID: "signals", Rev: 1, Payload: json.RawMessage(`{"D":0.5}`)}}},
	{`{"seq":3,"t":"2026-01-01T00:00:00.002Z","kind":"fact_updated","fact":{"kind":"_state","id":"_state","rev":2,"payload":{"name":"act","iteration":1}}}`,
		FactChange{Fact{Kind: "_state", ID: "_state", Rev: 2, Payload: json.RawMessage(`{"name":"act","iteration":1}`)}}},
	{`{"seq":4,"t":"2026-01-01T00:00:00.003Z","kind":"fact_retracted","fact":{"kind":"signals","id":"signals","rev":3,"payload":null}}`,
		FactChange{Fact{Kind: "signals", ID: "signals", Rev: 3, Payload: json.RawMessage(`null`)}}},
	{`{"seq":5,"t":"2026-01-01T00:00:00.004Z","kind":"conflict_set","cycle":1,"stage":"select_objective","scope":"all","evaluated":[{"rule":"a","result":"true"},{"rule":"b","result":"true","refracted":true},{"rule":"c","result":"error","error":"no field x"}],"conflict_set":["a"],"fired":"a","decided_by":"salience","objectives":[{"objective":"deliver","score":0.75,"satisfied":false},{"objective":"safe","error":"no field x"}]}`,
		ConflictSet{Cycle: 1, Stage: "select_objective", Scope: "all",
			Evaluated:   []RuleEval{{Rule: "a", Result: "true"}, {Rule: "b", Result: "true", Refracted: true}, {Rule: "c", Result: "error", Error: "no field x"}},
			ConflictSet: []string{"a"}, Fired: "a", DecidedBy: "salience",
			Objectives: []ObjectiveEval{{Objective: "deliver", Score: ptr(0.75), Satisfied: ptr(false)}, {Objective: "safe", Error: "no field x"}}}},
	{`{"seq":6,"t":"2026-01-01T00:00:00.005Z","kind":"rule_fired","cycle":1,"rule":"a","salience":10,"then":{"objective":"plan","assert":[{"kind":"note","id":"n1","fields":{"text":"hi"}}],"retract":[{"kind":"note"}],"transition":"reobserve"}}`,
		RuleFired{Cycle: 1, Rule: "a", Salience: 10, Then: &Then{Objective: "plan",
			Assert: []FactAction{{Kind: "note", ID: "n1", Fields: json.RawMessage(`{"text":"hi"}`)}}, Retract: []FactAction{{Kind: "note"}}, Transition: "reobserve"}}},
	{`{"seq":7,"t":"2026-01-01T00:00:00.006Z","kind":"rule_error","cycle":1,"rule":"a","errors":["assert note: unknown field y"]}`,
		RuleError{Cycle: 1, Rule: "a", Errors: []string{"assert note: unknown field y"}}},
	{`{"seq":8,"t":"2026-01-01T00:00:00.007Z","kind":"transition","from":"observe","to":"select_objective","event":"observed","iteration":1}`,
		Transition{From: "observe", To: "select_objective", Event: "observed", Iteration: 1}},
	{`{"seq":9,"t":"2026-01-01T00:00:00.008Z","kind":"effector_call","call":1,"op":"mint","request_hash":"sha256:cd","request":{"iteration":1,"objective":"plan"}}`,
		EffectorCall{Call: 1, Op: "mint", RequestHash: "sha256:cd", Request: json.RawMessage(`{"iteration":1,"objective":"plan"}`)}},
	{`{"seq":10,"t":"2026-01-01T00:00:00.009Z","kind":"exchange","name":"llm:R2","request":{"model":"m"},"response":{"content":"ok"},"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12},"duration_ms":40}`,
		Exchange{Name: "llm:R2", Request: json.RawMessage(`{"model":"m"}`), Response: json.RawMessage(`{"content":"ok"}`),
			Usage: &contract.ModelUsage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}, DurationMS: 40}},
	{`{"seq":11,"t":"2026-01-01T00:00:00.01Z","kind":"exchange","name":"tool:shell","request":null,"error":"denied","duration_ms":0}`,
		Exchange{Name: "tool:shell", Request: json.RawMessage(`null`), Error: "denied"}},
	{`{"seq":12,"t":"2026-01-01T00:00:00.011Z","kind":"message","from":"R4b","to":"R7","type":"ReplanRequest","task_id":"t1","payload":{"task_id":"t1"}}`,
		Message{Seq: 12, From: "R4b", To: "R7", Type: "ReplanRequest", TaskID: "t1", Payload: json.RawMessage(`{"task_id":"t1"}`)}},
	{`{"seq":13,"t":"2026-01-01T00:00:00.012Z","kind":"effector_result","call":1,"op":"mint","duration_ms":3,"result":{"id":"c1"}}`,
		EffectorResult{Call: 1, Op: "mint", DurationMS: 3, Result: json.RawMessage(`{"id":"c1"}`)}},
	{`{"seq":14,"t":"2026-01-01T00:00:00.013Z","kind":"effector_result","call":2,"op":"gate","duration_ms":0,"error":"model down"}`,
		EffectorResult{Call: 2, Op: "gate", Error: "model down"}},
	{`{"seq":15,"t":"2026-01-01T00:00:00.014Z","kind":"rules_reloaded","path":"rules/ggs.yaml","hash":"sha256:ef","source":"name: ggs\n"}`,
		Reload{Path: "rules/ggs.yaml", Hash: "sha256:ef", Source: "name: ggs\n"}},
	{`{"seq":16,"t":"2026-01-01T00:00:00.015Z","kind":"rules_reload_failed","path":"rules/ggs.yaml","error":"open rules/ggs.yaml: no such file or directory"}`,
		Reload{Path: "rules/ggs.yaml", Error: "open rules/ggs.yaml: no such file or directory"}},
	{`{"seq":17,"t":"2026-01-01T00:00:00.016Z","kind":"emit_error","event_kind":"note","error":"the body has the reserved key \"seq\""}`,
		EmitError{Kind: "note", Error: `the body has the reserved key "seq"`}},
	{`{"seq":18,"t":"2026-01-01T00:00:00.017Z","kind":"halt","run":"r1","outcome":"failure","objective":"abandon","iterations":3,"firings":4,"reason":"budget spent"}`,
		Halt{Run: "r1", Outcome: "failure", Objective: "abandon", Iterations: 3, Firings: 4, Reason: "budget spent"}},
	{`{"seq":19,"t":"2026-01-01T00:00:00.018Z","kind":"audit","finding":{"kind":"boundary_violation","severity":"high","task_id":"t1","message":"R3 wrote outside its workspace","evidence":[12,14]}}`,
		Audit{Finding: contract.AuditReport{Kind: "boundary_violation", Severity: "high", TaskID: "t1", Message: "R3 wrote outside its workspace", Evidence: []int64{12, 14}}}},
	{`{"seq":20,"t":"2026-01-01T00:00:00.019Z","kind":"host_note","text":"kept as it is"}`,
		json.RawMessage(`{"seq":20,"t":"2026-01-01T00:00:00.019Z","kind":"host_note","text":"kept as it is"}`)},
}

// TestEveryKind decodes one line of every kind into its type and encodes it back to
// the same bytes, through a sink, so the chained file is also what the engine writes.
func TestEveryKind(t *testing.T) {
	var in bytes.Buffer
	for _, k := range everyKind {
		in.WriteString(k.line + "\n")
	}
	sealed, err := SealTrace(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "every.jsonl")
	if err := os.WriteFile(path, sealed, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || f.ChainErr != nil {
		t.Fatalf("read: %v, chain %v", err, f.ChainErr)
	}
	if len(f.Events) != len(everyKind) {
		t.Fatalf("read %d events, want %d", len(f.Events), len(everyKind))
	}
	var sink MemorySink
	for i, k := range everyKind {
		e := &f.Events[i]
		if !reflect.DeepEqual(e.Body, k.body) {
			t.Errorf("line %d (%s): decoded\n%#v\nwant\n%#v", e.Line, e.Kind, e.Body, k.body)
		}
		got, err := (&Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: k.body}).AppendJSON(nil)
		if _, raw := k.body.(json.RawMessage); !raw && (err != nil || string(got) != k.line+"\n") {
			t.Errorf("line %d (%s): encoded\n%s\nwant\n%s (err %v)", e.Line, e.Kind, got, k.line, err)
		}
		body, err := e.BodyJSON()
		if err != nil {
			t.Fatalf("line %d: %v", e.Line, err)
		}
		if err := sink.Write(&Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if got := sink.Bytes(); !bytes.Equal(got, sealed) {
		t.Errorf("written again through a sink, the trace differs at %s", firstDiff(got, sealed))
	}
	if h, ok := f.Header(); !ok || h.Run != "r1" {
		t.Errorf("Header() = %+v, %v", h, ok)
	}
}

// TestFastEncodersMatchEncodingJSON checks that the hand-written encoders write exactly
// what encoding/json writes, including strings that need escaping and nil slices.
func TestFastEncodersMatchEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", "with space", `quote"`, `back\slash`, "<html>&", "tab\tnew\nline", "ünïcode", "\u2028", "\x7f"}
	var bodies []FieldsAppender
	for _, s := range odd {
		bodies = append(bodies,
			Transition{From: s, To: "act", Event: s, Iteration: -3},
			&ConflictSet{Cycle: 7, Stage: s, Scope: "all", Fired: s, DecidedBy: s,
				Evaluated:   []RuleEval{{Rule: s, Result: "true", Refracted: true}, {Rule: "x", Result: "error", Error: s}},
				ConflictSet: []string{s, "b"}},
			&ConflictSet{Evaluated: []RuleEval{}, ConflictSet: []string{}},
			&ConflictSet{},
			&ConflictSet{Objectives: []ObjectiveEval{{Objective: s, Score: ptr(0.1)}, {Objective: "b", Satisfied: ptr(true)},
				{Objective: "c", Score: ptr(1e-9), Satisfied: ptr(false)}, {Objective: "d", Score: ptr(-3e21)}, {Objective: "e", Error: s}}},
		)
	}
	for _, b := range bodies {
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got := append([]byte{'{'}, b.AppendFields(nil)[1:]...)
		got = append(got, '}')
		if string(got) != string(want) {
			t.Errorf("fast encoder differs:\n got %s\nwant %s", got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestAppendJSONRefusesBodiesThatAreNotObjects(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		body any
		want string
	}{
		{[]int{1}, "trace: x event body must encode as an object, got [1]"},
		{func() {}, "trace: encoding x event: json: unsupported type: func()"},
	} {
		_, err := (&Event{Seq: 1, Time: at, Kind: "x", Body: tc.body}).AppendJSON(nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("body %T: got %v, want %s", tc.body, err, tc.want)
		}
	}
	got, err := (&Event{Seq: 1, Time: at, Kind: "x", Body: struct{}{}}).AppendJSON(nil)
	if err != nil || string(got) != `{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"x"}`+"\n" {
		t.Errorf("empty body: %s %v", got, err)
	}
}

// A message's seq is its event's: a trace line carries it once, in the envelope, and a
// message decoded from the line has it; encoded on its own (a bus carrying it), the
// message has its seq.
func TestMessageSeqIsTheEnvelopes(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := Message{Seq: 9, From: "R2", To: "R3", Type: "SubTask", Payload: json.RawMessage(`{"a":1}`)}
	line, err := (&Event{Seq: 4, Time: at, Kind: KindMessage, Body: m}).AppendJSON(nil)
	const want = `{"seq":4,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R2","to":"R3","type":"SubTask","payload":{"a":1}}` + "\n"
	if err != nil || string(line) != want {
		t.Fatalf("line %s (%v), want %s", line, err, want)
	}
	if byPointer, err := (&Event{Seq: 4, Time: at, Kind: KindMessage, Body: &m}).AppendJSON(nil); err != nil || string(byPointer) != want || m.Seq != 9 {
		t.Fatalf("a *Message body: line %s (%v), message seq %d", byPointer, err, m.Seq)
	}
	e, err := DecodeLine(bytes.TrimSuffix(line, []byte("\n")))
	if got, ok := As[Message](&e); err != nil || !ok || got.Seq != 4 || got.From != "R2" {
		t.Fatalf("decoded %+v (%v)", e.Body, err)
	}
	own, err := json.Marshal(m)
	if err != nil || string(own) != `{"seq":9,"from":"R2","to":"R3","type":"SubTask","payload":{"a":1}}` {
		t.Fatalf("on its own: %s (%v)", own, err)
	}
}
