package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// planner is R2's own state: the task R1 sent it, the directive of the round at hand, and
// the plans it made. It knows of other roles' work only what arrived in its mailbox.
type planner struct {
	task      contract.TaskSpec
	directive *contract.PlanDirective // this round's; nil on the first
	plans     []planRecord
	rulings   map[string]ggs.Ruling // the rules' rulings on this round's memory pairs, by pair
}

// planRecord is one round's plan as R2 made it.
type planRecord struct {
	round     int
	directive *contract.PlanDirective
	out       planOutput // the plan as the model wrote it, for a retry
	plan      []contract.Assignment
	signature string
	// faulted: the round ended on a fault of the machinery, not on the plan's merits
	// (GGS answered retry), so the plan has not failed.
	faulted bool
}

// receive takes what R2 plans from: R1's TaskSpec on the first round, GGS's
// PlanDirective on every other.
func (r *planner) receive(post *bus.Post, round int) error {
	if round <= 1 {
		task, _, err := bus.Receive[contract.TaskSpec](post, "R2", contract.TypeTaskSpec)
		r.task, r.directive = task, nil
		return err
	}
	dir, _, err := bus.Receive[contract.PlanDirective](post, "R2", contract.TypePlanDirective)
	if err != nil {
		return err
	}
	r.directive = &dir
	if dir.Directive == contract.DirectiveRetry {
		if n := len(r.plans); n > 0 && r.plans[n-1].round == round-1 {
			r.plans[n-1].faulted = true
		}
		if r.task.TaskID == "" {
			// R1 could not read the task in the round that faulted; it posts the
			// TaskSpec in this one, after GGS's directive.
			task, _, err := bus.Receive[contract.TaskSpec](post, "R2", contract.TypeTaskSpec)
			r.task = task
			return err
		}
	}
	return nil
}

// retryPlan is the plan to dispatch again when GGS retries a round that faulted after R2
// had planned it; nil when R2 must plan anew (it faulted itself, or R1 did).
func (r *planner) retryPlan(round int) *planOutput {
	if r.directive == nil || r.directive.Directive != contract.DirectiveRetry {
		return nil
	}
	if n := len(r.plans); n > 0 && r.plans[n-1].round == round-1 {
		out := r.plans[n-1].out
		return &out
	}
	return nil
}

// guard is the round's MUST NOT set and memory's calibration, which the runtime enforces
// on R3's tool calls in code (the executor's prompt also states them).
type guard struct {
	must    mustNot
	cal     Calibration
	rulings map[string]ggs.Ruling
}

func (r *planner) guard(cal Calibration, known []string) guard {
	var blockedTools, blockedTargets []string
	if d := r.directive; d != nil {
		blockedTools, blockedTargets = d.BlockedTools, d.BlockedTargets
	}
	must := buildMustNot(cal, blockedTools, blockedTargets, known)
	must.applyRulings(r.rulings)
	return guard{must: must, cal: cal, rulings: r.rulings}
}

// cautionLines are the caution entries of the prompts: memory's text, then its Caution
// verdicts on tools and targets.
func (g guard) cautionLines() []string {
	return append(append([]string{}, g.cal.Caution...), g.cal.texts(contract.ActionCaution)...)
}

// query is what memory is asked before the round's plan: the intent, every tool R3 has,
// and the targets the directive blocks and the previous plan used.
func (r *planner) query(tools []string) contract.MemoryQuery {
	q := contract.MemoryQuery{Intent: r.task.Intent, Tools: tools, Targets: []contract.ToolTarget{}}
	seen := map[contract.ToolTarget]bool{}
	add := func(tt contract.ToolTarget) {
		if tt.Tool != "" && strings.TrimSpace(tt.Target) != "" && !seen[tt] {
			seen[tt] = true
			q.Targets = append(q.Targets, tt)
		}
	}
	if d := r.directive; d != nil {
		for _, key := range d.BlockedTargets {
			tool, tgt, _ := strings.Cut(key, ":")
			add(contract.ToolTarget{Tool: tool, Target: tgt})
		}
	}
	if n := len(r.plans); n > 0 {
		for _, a := range r.plans[n-1].plan {
			for _, tool := range a.Tools {
				for _, tgt := range a.Targets {
					add(contract.ToolTarget{Tool: tool, Target: tgt})
				}
			}
		}
	}
	return q
}

// unasked lists the tool × target pairs a proposed plan names that memory was not asked
// about this round, and marks them asked.
func unasked(o planOutput, asked map[contract.ToolTarget]bool) []contract.ToolTarget {
	var out []contract.ToolTarget
	for _, st := range o.SubTasks {
		for _, tool := range st.Tools {
			for _, tgt := range st.Targets {
				tt := contract.ToolTarget{Tool: tool, Target: tgt}
				if strings.TrimSpace(tgt) == "" || asked[tt] {
					continue
				}
				asked[tt] = true
				out = append(out, tt)
			}
		}
	}
	return out
}

// planRequest is the planner's user turn.
type planRequest struct {
	Task         contract.TaskSpec       `json:"task"`
	Round        int                     `json:"round"`
	Directive    *contract.PlanDirective `json:"directive"`
	MustNot      []string                `json:"must_not"`
	ShouldPrefer []string                `json:"should_prefer"`
	Caution      []string                `json:"caution"`
	Tools        []toolInfo              `json:"tools"`
	Previous     *roundDigest            `json:"previous_round,omitempty"`
}

type toolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// roundDigest reminds the planner what it planned last round; why that plan failed is
// GGS's directive.
type roundDigest struct {
	Round    int             `json:"round"`
	SubTasks []subtaskDigest `json:"subtasks"`
}

type subtaskDigest struct {
	Intent  string   `json:"intent"`
	Tools   []string `json:"tools"`
	Targets []string `json:"targets"`
}

// plan runs R2: it asks for a plan until one passes the contract and the plan validator
// (bounded by PlanAttempts), then assigns subtask IDs and posts each SubTask to R3 and
// the DispatchManifest to R4b.
//
// Before checking a proposed plan it asks memory about every tool × target the plan names
// that the round's calibration did not cover, and adds the answer to cal, so that the
// executor enforces it too.
func (p *Pipeline) plan(ctx context.Context, rec recorder, post *bus.Post, round int, cal *Calibration, asked contract.MemoryQuery) error {
	r2 := &p.r2
	if out := r2.retryPlan(round); out != nil {
		// The round faulted after this plan was made: the plan has not failed, and the
		// same plan runs again without asking the model.
		p.status(llm.R2, "", "retrying the same plan after a fault")
		return p.dispatchOf(post, round, *out)
	}
	g := r2.guard(*cal, p.tools)
	must := g.must
	body := planRequest{Task: r2.task, Round: round, Directive: r2.directive, MustNot: p.mustNotLines(must),
		ShouldPrefer: append(append([]string{}, cal.Exploit...), cal.texts(contract.ActionExploit)...),
		Caution:      g.cautionLines(), Previous: r2.lastDigest()}
	seen := map[contract.ToolTarget]bool{}
	for _, tt := range asked.Targets {
		seen[tt] = true
	}
	cal.asked = seen
	for _, name := range p.tools {
		body.Tools = append(body.Tools, toolInfo{Name: name, Description: p.specs[name].Description})
	}
	user, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("R2 Planner: encoding the request: %w", err)
	}
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: plannerPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	if d := r2.directive; d != nil {
		p.status(llm.R2, "", fmt.Sprintf("replanning (%s): %s", d.Directive, d.Rationale))
	} else {
		p.status(llm.R2, "", "planning")
	}

	m := p.model(llm.R2, rec)
	validate := func(o planOutput) error { return validatePlan(o, p.tools, p.cfg.MaxSubTasks) }
	var out planOutput
	for attempt := 1; ; attempt++ {
		o, resps, err := llm.CompleteJSON(ctx, m, req, validate)
		if err != nil {
			return fmt.Errorf("R2 Planner: %w", err)
		}
		if more := unasked(o, seen); len(more) > 0 && p.cfg.Memory != nil {
			extra, err := p.calibrate(ctx, rec, post, contract.MemoryQuery{Tools: []string{}, Targets: more})
			if err != nil {
				return err
			}
			cal.merge(extra)
			must = r2.guard(*cal, p.tools).must
		}
		violations := p.checkPlan(o, must)
		rec.exchange(engine.Exchange{Name: trace.ExchangeCheck + "plan", Request: map[string]int{"round": round, "attempt": attempt},
			Response: map[string][]string{"violations": nonNil(violations)}})
		if len(violations) == 0 {
			out = o
			break
		}
		if attempt >= p.cfg.PlanAttempts {
			return &corneredError{attempts: attempt, last: strings.Join(violations, "; ")}
		}
		p.status(llm.R2, "", "plan rejected by the validator; asking again")
		req.Messages = append(req.Messages,
			llm.AssistantTurn(resps[len(resps)-1].Content, nil),
			contract.ModelMessage{Role: llm.RoleUser, Content: "The plan validator rejected this plan:\n- " + strings.Join(violations, "\n- ") +
				"\nAnswer with a new plan, as the same JSON object, that respects every MUST NOT entry and differs from every plan that failed."})
	}
	return p.dispatchOf(post, round, out)
}

// dispatchOf assigns runtime IDs to the planned subtasks (the model's are discarded),
// posts each SubTask to R3 and then the DispatchManifest to R4b, and keeps the plan in
// R2's history.
func (p *Pipeline) dispatchOf(post *bus.Post, round int, out planOutput) error {
	r2 := &p.r2
	rp := planRecord{round: round, directive: r2.directive, out: out, signature: signature(out)}
	ids := make([]string, 0, len(out.SubTasks))
	for _, st := range out.SubTasks {
		a := contract.Assignment{SubTask: contract.SubTask{
			SubTaskID: p.cfg.IDs.NewID(), ParentTaskID: r2.task.TaskID, Intent: st.Intent,
			SuccessCriteria: st.SuccessCriteria, Context: st.Context, Deadline: st.Deadline, Sequence: st.Sequence,
		}, Tools: st.Tools, Targets: nonNil(st.Targets)}
		rp.plan = append(rp.plan, a)
		ids = append(ids, a.SubTaskID)
	}
	r2.plans = append(r2.plans, rp)
	for _, a := range rp.plan {
		if _, err := post.Send("R2", "R3", contract.TypeSubTask, r2.task.TaskID, a); err != nil {
			return err
		}
	}
	task := r2.task
	at := p.cfg.Clock.Now().UTC().Format(time.RFC3339)
	if p.cfg.Stamps != nil {
		if s, ok := p.cfg.Stamps.DispatchedAt(); ok {
			at = s
		}
	}
	manifest := contract.DispatchManifest{TaskID: task.TaskID, SubTaskIDs: ids, TaskSpec: &task,
		DispatchedAt: at, TaskCriteria: out.TaskCriteria}
	_, err := post.Send("R2", "R4b", contract.TypeDispatchManifest, task.TaskID, manifest)
	return err
}

// checkPlan is the code-side plan validator: no blocked tool, no blocked target, no
// memory Avoid, and not a plan that already failed.
func (p *Pipeline) checkPlan(o planOutput, must mustNot) []string {
	var v []string
	for i, st := range o.SubTasks {
		name := fmt.Sprintf("subtask %d (%q)", i+1, clip(st.Intent, 60))
		for _, t := range st.Tools {
			if why := must.toolBlocked(t); why.blocked() {
				v = append(v, fmt.Sprintf("%s uses the tool %s, %s", name, t, why.which()))
			}
		}
		for _, tgt := range st.Targets {
			for _, t := range st.Tools {
				if why := must.targetBlocked(t, tgt); why.blocked() {
					v = append(v, fmt.Sprintf("%s points %s at %q, %s", name, t, tgt, why.which()))
				}
			}
		}
	}
	sig := signature(o)
	for _, r := range p.r2.plans {
		if r.signature == sig && !r.faulted {
			v = append(v, fmt.Sprintf("the plan is the same as the plan of round %d, which failed", r.round))
			break
		}
	}
	return v
}

// mustNotLines words the MUST NOT set for the prompt, sorted.
func (p *Pipeline) mustNotLines(m mustNot) []string {
	out := []string{}
	for tool, why := range m.tools {
		out = append(out, why.line("tool "+tool))
	}
	for tool, ts := range m.targets {
		for _, t := range ts {
			out = append(out, t.line(fmt.Sprintf("%s on %q", tool, t.value)))
		}
	}
	sort.Strings(out)
	for _, t := range m.text {
		out = append(out, t+" (memory says MUST NOT)")
	}
	return out
}

// lastDigest reminds the planner of its previous plan.
func (r *planner) lastDigest() *roundDigest {
	if len(r.plans) == 0 {
		return nil
	}
	last := r.plans[len(r.plans)-1]
	d := &roundDigest{Round: last.round, SubTasks: []subtaskDigest{}}
	for _, a := range last.plan {
		d.SubTasks = append(d.SubTasks, subtaskDigest{Intent: a.Intent, Tools: a.Tools, Targets: a.Targets})
	}
	return d
}

// signature identifies a plan's substance (what each subtask does, with which tools, on
// which targets, in which order), so that a repeated failed plan is recognised.
func signature(o planOutput) string {
	type st struct {
		Intent   string   `json:"i"`
		Criteria []string `json:"c"`
		Tools    []string `json:"t"`
		Targets  []string `json:"g"`
		Seq      int      `json:"s"`
	}
	sts := make([]st, len(o.SubTasks))
	for i, s := range o.SubTasks {
		tools := append([]string(nil), s.Tools...)
		sort.Strings(tools)
		targets := make([]string, len(s.Targets))
		for j, t := range s.Targets {
			targets[j] = strings.Join(strings.Fields(t), " ")
		}
		sort.Strings(targets)
		sts[i] = st{Intent: strings.ToLower(strings.Join(strings.Fields(s.Intent), " ")), Criteria: s.SuccessCriteria.Texts(),
			Tools: tools, Targets: targets, Seq: s.Sequence}
	}
	b, _ := json.Marshal(sts) // strings and ints always encode
	return string(b)
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// clip shortens s to n characters for a message.
func clip(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
