package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/yamlnode"
)

// Scenario is a parsed GGS scenario file:
//
//	name: ggs_change_path_then_success
//	description: what it shows
//	rules: ggs.yaml
//	task: {task_id: mig-1, intent: Migrate the users table}
//	final: success                    # optional: the FinalResult directive it must end with
//	rounds:
//	  - report: {type: ReplanRequest, payload: {...}}
//	  - expect: change_path            # optional: the directive this round must be given
//	    report: {type: OutcomeSummary, payload: {...}}
type Scenario struct {
	Name        string
	Description string
	Rules       string
	Task        contract.TaskSpec
	Final       string
	Rounds      []Round
}

// Round is one scripted round.
type Round struct {
	Line   int
	Expect string // directive the round must receive; "" = not checked
	Report ggs.Message
}

type fileShape struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Rules       string `yaml:"rules"`
	Task        struct {
		TaskID string `yaml:"task_id"`
		Intent string `yaml:"intent"`
	} `yaml:"task"`
	Final  string      `yaml:"final"`
	Rounds []yaml.Node `yaml:"rounds"`
}

type roundShape struct {
	Expect string    `yaml:"expect"`
	Report yaml.Node `yaml:"report"`
}

// ParseFile reads a scenario file.
func ParseFile(path string) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse reads a scenario. Reports are checked as strictly as `spine ggs` checks its input.
func Parse(name string, src []byte) (*Scenario, error) {
	var fs fileShape
	if err := yamlnode.DecodeStrict(src, &fs); err != nil {
		return nil, fmt.Errorf("%s: %s", name, yamlMessage(err))
	}
	switch {
	case fs.Name == "":
		return nil, fmt.Errorf("%s: missing name", name)
	case fs.Task.TaskID == "":
		return nil, fmt.Errorf("%s: missing task.task_id", name)
	case len(fs.Rounds) == 0:
		return nil, fmt.Errorf("%s: no rounds: a scenario needs at least one report", name)
	}
	if fs.Final != "" && !contract.IsTerminal(fs.Final) {
		return nil, fmt.Errorf("%s: final %q is not a terminal directive (accept, success or abandon)", name, fs.Final)
	}
	sc := &Scenario{Name: fs.Name, Description: fs.Description, Rules: fs.Rules, Final: fs.Final,
		Task: contract.TaskSpec{TaskID: fs.Task.TaskID, Intent: fs.Task.Intent, RawInput: fs.Task.Intent}}
	for i := range fs.Rounds {
		n := &fs.Rounds[i]
		r, err := parseRound(n, sc.Task.TaskID)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: round %d: %w", name, n.Line, n.Column, i+1, err)
		}
		sc.Rounds = append(sc.Rounds, r)
	}
	return sc, nil
}

func parseRound(n *yaml.Node, taskID string) (Round, error) {
	r := Round{Line: n.Line}
	var rs roundShape
	if n.Kind != yaml.MappingNode {
		return r, fmt.Errorf("expected a mapping with report (and optionally expect)")
	}
	if err := n.Decode(&rs); err != nil {
		return r, fmt.Errorf("%s", yamlMessage(err))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "expect" && k != "report" {
			return r, fmt.Errorf("unknown key %q (expected expect or report)", k)
		}
	}
	if rs.Report.Kind == 0 {
		return r, fmt.Errorf("missing report")
	}
	var v any
	if err := rs.Report.Decode(&v); err != nil {
		return r, fmt.Errorf("report: %s", yamlMessage(err))
	}
	line, err := json.Marshal(v)
	if err != nil {
		return r, fmt.Errorf("report: %v", err)
	}
	msg, err := ggs.DecodeMessage(line)
	if err != nil {
		return r, fmt.Errorf("report: %v", err)
	}
	if msg.TaskID() != taskID {
		return r, fmt.Errorf("report is for task %q, the scenario's task is %q", msg.TaskID(), taskID)
	}
	r.Report = msg
	r.Expect = rs.Expect
	return r, nil
}

// yamlMessage turns a yaml.v3 error into one line that names the key at fault.
func yamlMessage(err error) string { return yamlnode.Message(err, "") }

// Plant serves a scenario's reports, one per round.
type Plant struct {
	sc   *Scenario
	mu   sync.Mutex
	next int
}

var _ ggs.Plant = (*Plant)(nil)

// NewPlant returns a plant that plays sc from its first round.
func NewPlant(sc *Scenario) *Plant { return &Plant{sc: sc} }

// OutOfRoundsError is a scenario that ran out of rounds: the rules played with it went
// on past its last report (edited rules that no longer end the task where the scenario's
// own rules do). The run still ends in a FinalResult the rules decide (a failed
// effector call); PlayDesigned reports it as the play's outcome, not as an error.
type OutOfRoundsError struct {
	Scenario      string
	Rounds, Asked int
}

func (e *OutOfRoundsError) Error() string {
	return fmt.Sprintf("the scenario %q holds %d rounds; the rules asked for a %s", e.Scenario, e.Rounds, ordinal(e.Asked))
}

// ordinal is n as "4th", "21st".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// Round takes GGS's PlanDirective from R2's mailbox, checks it against the scenario, and
// posts the round's scripted report from R4b to R7.
func (p *Plant) Round(ctx context.Context, post *bus.Post, in ggs.RoundInput) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.sc.Rounds) {
		return &OutOfRoundsError{Scenario: p.sc.Name, Rounds: len(p.sc.Rounds), Asked: p.next + 1}
	}
	r := p.sc.Rounds[p.next]
	p.next++
	got := contract.DirectiveInit
	if in.Round > 1 {
		dir, _, err := bus.Receive[contract.PlanDirective](post, "R2", contract.TypePlanDirective)
		if err != nil {
			return err
		}
		got = dir.Directive
	}
	if r.Expect != "" && got != r.Expect {
		return fmt.Errorf("scenario %q round %d (line %d) expects directive %s, GGS gave %s", p.sc.Name, p.next, r.Line, r.Expect, got)
	}
	var err error
	if r.Report.Replan != nil {
		_, err = post.Send("R4b", "R7", contract.TypeReplanRequest, in.TaskID, r.Report.Replan)
	} else {
		_, err = post.Send("R4b", "R7", contract.TypeOutcomeSummary, in.TaskID, r.Report.Outcome)
	}
	return err
}
