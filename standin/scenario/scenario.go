package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/internal/yamlnode"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Scenario is a parsed scenario file.
type Scenario struct {
	Name        string
	Description string
	// Rules names the rule set the scenario was designed for: a shipped rule file
	// ("harness.yaml") or a path relative to the scenario file.
	Rules string
	// Topic is what the scenario's constructs are about, the key of its scorecard entry;
	// the scenario's name when the file gives none.
	Topic string
	// Seed is the gate's verdict on the seed, served when observe judges the run before
	// its first construct; nil when the file gives none (observe then changes nothing).
	Seed   *Round
	Rounds []Round
}

// Round is the gate's answer for one iteration.
type Round struct {
	Line    int // line of the round in the scenario file
	Changes []engine.Change
}

type fileShape struct {
	Name        string      `yaml:"name"`
	Description string      `yaml:"description"`
	Rules       string      `yaml:"rules"`
	Topic       string      `yaml:"topic"`
	Seed        yaml.Node   `yaml:"seed"`
	Rounds      []yaml.Node `yaml:"rounds"`
}

// Parse reads a scenario. Each round is a mapping from "kind" or "kind/id" to the fields
// to put, or to null to retract the fact:
//
//	topic: gap_topic_7                    # optional; the name by default
//	seed: {signals: {has_construct: false}}  # optional: the verdict on the seed
//	rounds:
//	  - signals: {has_construct: true, deeponto_ok: false}
//	  - signals: {deeponto_ok: true}      # fields not named keep their values
func Parse(name string, src []byte) (*Scenario, error) {
	var fs fileShape
	if err := yamlnode.DecodeStrict(src, &fs); err != nil {
		return nil, fmt.Errorf("%s: %s", name, yamlMessage(err))
	}
	if fs.Name == "" {
		return nil, fmt.Errorf("%s: missing name", name)
	}
	if len(fs.Rounds) == 0 {
		return nil, fmt.Errorf("%s: no rounds: a scenario needs at least one round of signals", name)
	}
	sc := &Scenario{Name: fs.Name, Description: fs.Description, Rules: fs.Rules, Topic: fs.Topic}
	if sc.Topic == "" {
		sc.Topic = sc.Name
	}
	if n := &fs.Seed; n.Kind != 0 {
		r, err := parseRound(n)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: seed: %w", name, n.Line, n.Column, err)
		}
		sc.Seed = &r
	}
	for i := range fs.Rounds {
		n := &fs.Rounds[i]
		r, err := parseRound(n)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: round %d: %w", name, n.Line, n.Column, i+1, err)
		}
		sc.Rounds = append(sc.Rounds, r)
	}
	return sc, nil
}

func parseRound(n *yaml.Node) (Round, error) {
	r := Round{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return r, errors.New("expected a mapping of kind: {field: value}")
	}
	var m map[string]map[string]any
	if err := n.Decode(&m); err != nil {
		return r, errors.New(yamlMessage(err))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kind, id, _ := strings.Cut(k, "/")
		if kind == "" {
			return r, fmt.Errorf("%q: expected kind or kind/id", k)
		}
		if m[k] == nil {
			r.Changes = append(r.Changes, engine.Change{Op: engine.ChangeRetract, Kind: kind, ID: id})
			continue
		}
		r.Changes = append(r.Changes, engine.Change{Op: engine.ChangePut, Kind: kind, ID: id, Fields: ruleset.Fields(m[k])})
	}
	return r, nil
}

// Effector serves a scenario's rounds in order, one per Gate call. It is a test double:
// see the package documentation.
type Effector struct {
	sc   *Scenario
	mu   sync.Mutex
	next int
	// judged maps each gated construct to the round that judged it, so that observe
	// gives the same construct the same verdict: the membrane is deterministic.
	judged map[string]int
	last   *engine.Construct // the construct gated last
}

var _ engine.Effector = (*Effector)(nil)

// NewEffector returns an effector that plays sc from its first round.
func NewEffector(sc *Scenario) *Effector { return &Effector{sc: sc} }

// Mint returns a construct that only records the objective it was asked for.
func (e *Effector) Mint(ctx context.Context, req engine.MintRequest) (engine.Construct, error) {
	body, err := json.Marshal(struct {
		Scenario  string `json:"scenario"`
		Objective string `json:"objective"`
	}{e.sc.Name, req.Objective})
	if err != nil {
		return engine.Construct{}, err
	}
	return engine.Construct{ID: fmt.Sprintf("construct-%d", req.Iteration), Body: body}, nil
}

// Gate returns the next round.
func (e *Effector) Gate(ctx context.Context, req engine.GateRequest) (engine.Signals, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.next >= len(e.sc.Rounds) {
		return engine.Signals{}, fmt.Errorf("scenario %q has %d rounds and was asked for round %d", e.sc.Name, len(e.sc.Rounds), e.next+1)
	}
	r := e.sc.Rounds[e.next]
	if e.judged == nil {
		e.judged = map[string]int{}
	}
	e.judged[req.Construct.ID] = e.next
	c := req.Construct
	e.last = &c
	e.next++
	return engine.Signals{Changes: r.Changes}, nil
}

var notMapRe = regexp.MustCompile("cannot unmarshal !!\\w+ `(.*)` into map\\[string\\]interface \\{\\}")

// yamlMessage turns a yaml.v3 error into one line that says what was expected.
func yamlMessage(err error) string {
	msg := yamlnode.Message(err, " (expected name, description, rules, topic, seed or rounds)")
	return notMapRe.ReplaceAllString(msg, `expected a mapping of field: value, got $1`)
}
