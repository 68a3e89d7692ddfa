package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Sidecar formats, written in each file's format field.
const (
	ScorecardFormat  = "spine-scorecard/1"
	CandidatesFormat = "spine-candidates/1"
)

// Verdicts of a topic in a scorecard.
const (
	VerdictAdmitted  = "admitted"  // a terminal success objective: the construct is admitted
	VerdictRejected  = "rejected"  // a terminal failure objective: the topic was given up
	VerdictUndecided = "undecided" // the run ended without a terminal objective
)

// Report is what a play leaves besides its trace: the seed's scorecard (the final
// verdict per topic) and candidates (the admitted constructs). It holds only what the
// run decided, read from the engine's memory at the end: no wall clock, no map order.
type Report struct {
	Result trace.Halt
	Rules  RulesRef
	Topic  string
	Entry  TopicEntry
	rule   string // the rule that chose the final objective
}

// RulesRef names the rule set a report was made with.
type RulesRef struct {
	Hash string `json:"hash"`
	Name string `json:"name"`
}

// TopicEntry is one topic's final verdict in a scorecard.
type TopicEntry struct {
	Construct  *engine.Construct           `json:"construct,omitempty"` // the construct gated last
	Facts      map[string]ruleset.Fields   `json:"facts"`               // "kind" or "kind/id" → fields
	Iterations int                         `json:"iterations"`
	Objective  string                      `json:"objective"`
	Objectives map[string]ObjectiveVerdict `json:"objectives,omitempty"`
	Outcome    string                      `json:"outcome"`
	Verdict    string                      `json:"verdict"`
}

// ObjectiveVerdict is a scored objective's final value.
type ObjectiveVerdict struct {
	Error     string   `json:"error,omitempty"`
	Satisfied *bool    `json:"satisfied,omitempty"`
	Score     *float64 `json:"score,omitempty"`
}

// newReport reads the end of a run from its engine.
func newReport(sc *Scenario, rs *ruleset.RuleSet, res trace.Halt, sess *engine.Session, eff *Effector) *Report {
	r := &Report{Result: res, Rules: RulesRef{Hash: rs.Hash(), Name: rs.Name()}, Topic: sc.Topic}
	e := TopicEntry{Facts: map[string]ruleset.Fields{}, Iterations: res.Iterations, Objective: res.Objective, Outcome: res.Outcome}
	switch res.Outcome {
	case engine.OutcomeSuccess:
		e.Verdict = VerdictAdmitted
	case engine.OutcomeFailure:
		e.Verdict = VerdictRejected
	default:
		e.Verdict = VerdictUndecided
	}
	if c, ok := eff.Last(); ok {
		e.Construct = &c
	}
	for _, f := range sess.Memory().All() {
		if f.Kind == ruleset.KindState {
			continue
		}
		if f.Kind == ruleset.KindObjective {
			if v, ok := f.Get("rule"); ok {
				r.rule, _ = v.(string)
			}
			continue
		}
		key := f.Kind
		if f.ID != f.Kind {
			key += "/" + f.ID
		}
		e.Facts[key] = fieldsOf(f)
	}
	for _, o := range sess.Objectives() {
		v := ObjectiveVerdict{Error: o.Error}
		if o.Error == "" && o.HasScore {
			s := o.Score
			v.Score = &s
		}
		if o.Error == "" && o.HasSatisfied {
			b := o.Satisfied
			v.Satisfied = &b
		}
		if e.Objectives == nil {
			e.Objectives = map[string]ObjectiveVerdict{}
		}
		e.Objectives[o.Objective] = v
	}
	r.Entry = e
	return r
}

// fieldsOf reads a fact's declared fields by name.
func fieldsOf(f engine.Fact) ruleset.Fields {
	out := ruleset.Fields{}
	b, err := json.Marshal(f.Payload)
	if err != nil {
		return out
	}
	_ = json.Unmarshal(b, &out)
	return out
}

// Scorecard is scorecard.json: the final verdict per topic.
func (r *Report) Scorecard() ([]byte, error) {
	return canonical(struct {
		Format string                `json:"format"`
		Rules  RulesRef              `json:"rules"`
		Run    string                `json:"run"`
		Topics map[string]TopicEntry `json:"topics"`
	}{ScorecardFormat, r.Rules, r.Result.Run, map[string]TopicEntry{r.Topic: r.Entry}})
}

// Candidate is one admitted construct in candidates.json.
type Candidate struct {
	Construct  *engine.Construct           `json:"construct"`
	Facts      map[string]ruleset.Fields   `json:"facts"`
	Iteration  int                         `json:"iteration"`
	Objective  string                      `json:"objective"`
	Objectives map[string]ObjectiveVerdict `json:"objectives,omitempty"`
	Rule       string                      `json:"rule"`
	Topic      string                      `json:"topic"`
}

// Candidates is candidates.json: the constructs the run admitted, none unless a
// terminal success objective ended it with a construct in hand.
func (r *Report) Candidates() ([]byte, error) {
	list := []Candidate{}
	if r.Entry.Verdict == VerdictAdmitted && r.Entry.Construct != nil {
		list = append(list, Candidate{
			Construct: r.Entry.Construct, Facts: r.Entry.Facts, Iteration: r.Result.Iterations,
			Objective: r.Entry.Objective, Objectives: r.Entry.Objectives, Rule: r.rule, Topic: r.Topic,
		})
	}
	return canonical(struct {
		Candidates []Candidate `json:"candidates"`
		Format     string      `json:"format"`
		Run        string      `json:"run"`
	}{list, CandidatesFormat, r.Result.Run})
}

// canonical encodes v as indented JSON with every object's keys sorted, construct bodies
// included, and numbers written as they were.
func canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SidecarPaths returns where the scorecard and the candidates of a trace go: beside it,
// named after it. trace.jsonl has scorecard.json and candidates.json beside it, as in the
// seed's evidence layout; X.trace.jsonl and X.jsonl have X.scorecard.json and
// X.candidates.json, so that several plays can share a directory.
func SidecarPaths(tracePath string) (scorecard, candidates string) {
	dir, base := filepath.Split(tracePath)
	base = strings.TrimSuffix(base, ".jsonl")
	if base == "trace" {
		base = ""
	}
	if base = strings.TrimSuffix(base, ".trace"); base != "" {
		base += "."
	}
	return filepath.Join(dir, base+"scorecard.json"), filepath.Join(dir, base+"candidates.json")
}

// Sidecars returns the two files' contents.
func (r *Report) Sidecars() (scorecard, candidates []byte, err error) {
	if scorecard, err = r.Scorecard(); err != nil {
		return nil, nil, fmt.Errorf("encoding the scorecard: %w", err)
	}
	if candidates, err = r.Candidates(); err != nil {
		return nil, nil, fmt.Errorf("encoding the candidates: %w", err)
	}
	return scorecard, candidates, nil
}

// CheckSidecarsFree refuses a play whose scorecard or candidates file already exists:
// like the trace, the seed's sidecars are evidence and never overwritten. A trace that
// exists is left for the trace's own refusal, which comes first.
func CheckSidecarsFree(tracePath string) error {
	if _, err := os.Lstat(tracePath); err == nil {
		return nil
	}
	card, cands := SidecarPaths(tracePath)
	for _, p := range []string{card, cands} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s already exists; a play never overwrites its sidecars (choose another --trace)", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WriteSidecars writes the scorecard and the candidates beside the trace at tracePath,
// each to a new file, and returns their paths.
func (r *Report) WriteSidecars(tracePath string) (scorecard, candidates string, err error) {
	card, cands, err := r.Sidecars()
	if err != nil {
		return "", "", err
	}
	scorecard, candidates = SidecarPaths(tracePath)
	if err := trace.WriteNewFile(scorecard, card); err != nil {
		return "", "", err
	}
	if err := trace.WriteNewFile(candidates, cands); err != nil {
		return "", "", err
	}
	return scorecard, candidates, nil
}
