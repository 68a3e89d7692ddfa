package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// Report is what the page shows of one trace, built by Build; Render writes it out.
type Report struct {
	Name       string // the trace as the caller named it
	Run        string
	Intent     string // what the run was asked, from the header's meta (intent or raw_input)
	Format     string
	Rules      RulesRef
	Meta       []KV
	Params     []KV
	Thresholds runlog.Thresholds
	Loss       *runlog.Loss
	Rounds     []PipelineRound
	Decisions  []Decision
	Items      []Item // every exchange and message, in trace order
	Findings   []Finding
	Halt       *Halt
	Ending     Ending    // why the run ended, from its FinalResult or its last fault
	Calls      []Call    // every model and tool call, for the waterfall
	Cycles     []Step    // every rule cycle, for the step-through
	Incomplete string    // why the recording is incomplete, "" when it is whole
	Map        *RulesMap // the rule set's decision map with the run's path, nil when not drawn
	NoMap      string    // why there is no map
	Chain      Chain
	Totals     Totals
}

// RulesRef names the rule file the run used.
type RulesRef struct{ Name, Path, Hash string }

// KV is one name and its value as JSON text.
type KV struct{ Key, Value string }

// Chain is what the trace's hash chain says of it: Broken when a line does not link,
// and the lines from there on are not what the run wrote.
type Chain struct {
	Text   string
	Broken bool
}

func chainStatus(f *trace.File) Chain {
	if ce := f.Broken(); ce != nil {
		return Chain{Text: "hash chain broken at " + ce.Error() + ": the lines from there on are shown as read, not verified", Broken: true}
	}
	if f.Chain.Format == "" {
		return Chain{}
	}
	return Chain{Text: f.Chain.String()}
}

// Halt is how the run ended.
type Halt struct {
	Outcome, Objective, Reason string
	Iterations, Firings        int
}

// Totals counts what the run did.
type Totals struct {
	ModelCalls, ToolCalls, PlanChecks, Messages, Exchanges int
	TokensIn, TokensOut                                    int
	FailedExchanges                                        int
}

// PipelineRound is one iteration of the engine's loop: what each role did in it, the
// objectives rules chose, and the loss GGS measured at its end. Iteration 0 is what
// happened before the loop started.
type PipelineRound struct {
	Iteration  int
	Objectives []Objective
	Lanes      []Lane        // the roles in pipeline order; a lane may be empty
	Loss       *runlog.Round // nil when no loss was measured in this iteration
}

// Objective is an objective a rule set, in firing order.
type Objective struct{ Name, Rule string }

// Lane is one role's work in a round.
type Lane struct {
	Role, Title string
	Items       []LaneItem
}

// LaneItem points at one exchange or message from a lane.
type LaneItem struct {
	Anchor, Kind, Text string
	Full               string // Text before its ids were cut, "" when none was
	Outcome            string // a model call's: answered, retried or failed
	Failed             bool
}

// Decision is one conflict set: the rules evaluated at a stage, the ones that matched,
// the one that fired and what broke a tie.
type Decision struct {
	Seq         int64
	Cycle       int
	Iteration   int
	Stage       string
	Scope       string
	Evaluated   []RuleEval
	Matched     int
	ConflictSet []string
	Fired       string
	DecidedBy   string
	Salience    string // of the fired rule, "" when none fired
	Then        string // the fired rule's then, as JSON
	Objectives  []ObjectiveScore
	Satisfied   int // objectives satisfied
}

// ObjectiveScore is a scored objective as the rules saw it in a conflict set.
type ObjectiveScore struct {
	Name, Score, Error string
	Satisfied          bool
}

// RuleEval is one rule's evaluation in a conflict set.
type RuleEval struct {
	Rule, Result, Error string
	Refracted           bool
}

// Item is one exchange or message, with what a reader needs to see it whole.
type Item struct {
	Anchor    string
	Seq       int64
	At        string // time since the trace began
	Iteration int
	Kind      string // model, tool, check, memory, exchange or message
	Title     string
	Summary   string
	Full      string // Summary before its ids were cut, "" when none was
	Outcome   string // a model call's: answered, retried or failed
	Failed    bool
	Error     string
	Details   []string
	Chat      []ChatTurn // a model call's request, turn by turn
	Reply     string     // a model call's answer
	Calls     []string   // tool calls the model asked for
	CallArgs  []string   // each with its arguments
	Request   string     // the full request (or a message's payload) as indented JSON
	Response  string
}

// ChatTurn is one message of a model call's request.
type ChatTurn struct{ Role, Content string }

// Finding is one of the Auditor's findings, with links to the events it cites.
type Finding struct {
	contract.AuditReport
	Links []Link
}

// Link is a trace seq and the anchor it is shown at, "" when the page does not show it.
type Link struct {
	Seq    int64
	Anchor string
}

// roles is the pipeline in order, and what each role is.
var roles = []struct{ id, title string }{
	{"R1", "Perceiver"}, {"R2", "Planner"}, {"R3", "Executor"},
	{"R4a", "Validator"}, {"R4b", "Meta-validator"}, {"R7", "GGS"},
}

// Build reads a trace read whole into a Report; name is used in errors and as the
// page's title. A line of a kind the report shows that does not decode is an error
// naming it. The Auditor runs over the trace's messages with its default config.
func Build(name string, f *trace.File) (*Report, error) {
	loss, err := runlog.Rounds(name, f)
	if err != nil {
		return nil, err
	}
	r := &Report{Name: name, Loss: loss, Incomplete: f.Incomplete(), Chain: chainStatus(f)}
	b := builder{r: r, roundBySeq: map[int64]*runlog.Round{}, anchors: map[int64]string{}, measured: -1, cycles: newCycles()}
	for i := range loss.Rounds {
		b.roundBySeq[loss.Rounds[i].Seq] = &loss.Rounds[i]
	}
	for i := range f.Events {
		e := &f.Events[i]
		b.cycles.event(r, e)
		if err := b.event(name, e); err != nil {
			return nil, err
		}
		b.end.event(e)
	}
	b.cycles.close(r)
	r.Ending = b.end.ending(r)
	if len(loss.Rounds) > 0 {
		r.Map, r.NoMap = mapOfRun(b.rulesName, b.rulesSource, loss.Rounds)
	}
	res, err := findings(name, f)
	if err != nil {
		return nil, err
	}
	for _, f := range res.Findings {
		fd := Finding{AuditReport: f}
		for _, s := range f.Evidence {
			fd.Links = append(fd.Links, Link{Seq: s, Anchor: b.anchors[s]})
		}
		r.Findings = append(r.Findings, fd)
	}
	return r, nil
}

type builder struct {
	r          *Report
	start      time.Time
	iteration  int
	round      *PipelineRound
	roundBySeq map[int64]*runlog.Round
	anchors    map[int64]string // seq → anchor of the events the page shows
	// measured is the index in r.Rounds of the round GGS last measured, -1 before the
	// first: R7 speaks of that round (its directive and Megrams) although it sends in
	// the next iteration's mint.
	measured int
	end      endings
	cycles   cycles

	rulesName, rulesSource string
}

func (b *builder) event(name string, e *trace.Event) error {
	if b.round == nil || b.round.Iteration != b.iteration {
		b.r.Rounds = append(b.r.Rounds, newRound(b.iteration))
		b.round = &b.r.Rounds[len(b.r.Rounds)-1]
	}
	switch body := e.Body.(type) {
	case trace.Header:
		return b.header(name, e, body)
	case trace.Transition:
		b.iteration = body.Iteration
	case trace.FactChange:
		if rd, ok := b.roundBySeq[e.Seq]; ok {
			b.round.Loss = rd
			b.measured = len(b.r.Rounds) - 1
		}
	case trace.ConflictSet:
		d := Decision{Seq: e.Seq, Cycle: body.Cycle, Iteration: b.iteration, Stage: body.Stage, Scope: body.Scope,
			ConflictSet: body.ConflictSet, Fired: body.Fired, DecidedBy: body.DecidedBy}
		for _, ev := range body.Evaluated {
			d.Evaluated = append(d.Evaluated, RuleEval{Rule: ev.Rule, Result: ev.Result, Error: ev.Error, Refracted: ev.Refracted})
			if ev.Result == "true" && !ev.Refracted {
				d.Matched++
			}
		}
		for _, o := range body.Objectives {
			sc := ObjectiveScore{Name: o.Objective, Error: o.Error, Score: "–"}
			if o.Score != nil {
				sc.Score = strconv.FormatFloat(*o.Score, 'f', 3, 64)
			}
			if o.Satisfied != nil && *o.Satisfied {
				sc.Satisfied = true
				d.Satisfied++
			}
			d.Objectives = append(d.Objectives, sc)
		}
		b.r.Decisions = append(b.r.Decisions, d)
		b.anchors[e.Seq] = anchor(e.Seq)
	case trace.RuleFired:
		if n := len(b.r.Decisions); n > 0 {
			d := &b.r.Decisions[n-1]
			if d.Cycle == body.Cycle && d.Fired == body.Rule {
				d.Salience = strconv.Itoa(body.Salience)
				if body.Then != nil {
					then, _ := json.Marshal(body.Then) // plain strings and raw JSON always encode
					d.Then = string(then)
				}
			}
		}
		if body.Then != nil && body.Then.Objective != "" {
			b.round.Objectives = append(b.round.Objectives, Objective{Name: body.Then.Objective, Rule: body.Rule})
		}
	case trace.Halt:
		b.r.Halt = &Halt{Outcome: body.Outcome, Objective: body.Objective, Reason: body.Reason, Iterations: body.Iterations, Firings: body.Firings}
	case trace.Exchange:
		b.exchange(e, body)
	case trace.Message:
		b.message(e, body)
	}
	return nil
}

func newRound(iteration int) PipelineRound {
	pr := PipelineRound{Iteration: iteration}
	for _, ro := range roles {
		pr.Lanes = append(pr.Lanes, Lane{Role: ro.id, Title: ro.title})
	}
	return pr
}

func (b *builder) header(name string, e *trace.Event, h trace.Header) error {
	r := b.r
	r.Run, r.Format = h.Run, h.Format
	r.Rules = RulesRef{Name: h.Rules.Name, Path: h.Rules.Path, Hash: h.Rules.Hash}
	b.start = e.Time
	for _, k := range slices.Sorted(maps.Keys(h.Meta)) {
		r.Meta = append(r.Meta, KV{Key: k, Value: h.Meta[k]})
	}
	r.Intent = h.Meta["intent"]
	if r.Intent == "" {
		r.Intent = h.Meta["raw_input"]
	}
	var err error
	if r.Params, err = sortedKV(h.Params); err != nil {
		return fmt.Errorf("%s:%d: header: params: %v", name, e.Line, err)
	}
	r.Thresholds = runlog.ThresholdsOf(h)
	b.rulesName, b.rulesSource = h.Rules.Path, h.Rules.Source
	return nil
}

// roundOf is the round a role's work belongs to: the current one, except for R7, whose
// messages (a PlanDirective, Megrams, the FinalResult) conclude the round GGS last
// measured.
func (b *builder) roundOf(role string) *PipelineRound {
	if role == "R7" && b.measured >= 0 {
		return &b.r.Rounds[b.measured]
	}
	return b.round
}

// lane is the lane of a role in its round; a role outside the pipeline gets a lane of
// its own after the others.
func (b *builder) lane(role string) *Lane {
	rd := b.roundOf(role)
	for i := range rd.Lanes {
		if rd.Lanes[i].Role == role {
			return &rd.Lanes[i]
		}
	}
	rd.Lanes = append(rd.Lanes, Lane{Role: role, Title: "other"})
	return &rd.Lanes[len(rd.Lanes)-1]
}

func (b *builder) item(e *trace.Event, it Item, role, laneText string) {
	it.Anchor, it.Seq, it.Iteration = anchor(e.Seq), e.Seq, b.roundOf(role).Iteration
	it.At = "+" + human(e.Time.Sub(b.start))
	if short, cut := shortIDs(it.Summary); cut {
		it.Summary, it.Full = short, it.Summary
	}
	b.anchors[e.Seq] = it.Anchor
	b.r.Items = append(b.r.Items, it)
	l := b.lane(role)
	li := LaneItem{Anchor: it.Anchor, Kind: it.Kind, Text: laneText, Outcome: it.Outcome, Failed: it.Failed}
	if short, cut := shortIDs(laneText); cut {
		li.Text, li.Full = short, laneText
	}
	l.Items = append(l.Items, li)
}

func anchor(seq int64) string { return "ev-" + strconv.FormatInt(seq, 10) }
