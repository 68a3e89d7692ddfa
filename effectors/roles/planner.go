package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine"
)

// Assignment is a SubTask as dispatched to R3: the contract's fields, with the ID the
// runtime assigned, and the tools and targets the plan declared for it.
type Assignment struct {
	contract.SubTask
	Tools   []string `json:"tools"`
	Targets []string `json:"targets"`
}

// dispatchPlan is a validated plan with runtime IDs.
type dispatchPlan struct {
	assignments []Assignment
	manifest    contract.DispatchManifest
	must        mustNot
	caution     []string
	signature   string
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

// roundDigest tells the planner what the last round did and how it ended.
type roundDigest struct {
	Round    int             `json:"round"`
	SubTasks []subtaskDigest `json:"subtasks"`
	Rejected []string        `json:"merged_result_failed,omitempty"`
	Summary  string          `json:"summary"`
}

type subtaskDigest struct {
	Intent    string   `json:"intent"`
	Tools     []string `json:"tools"`
	Status    string   `json:"status"`
	Failed    []string `json:"failed_criteria,omitempty"`
	ToolCalls []string `json:"tool_calls,omitempty"`
}

// plan runs R2: it asks for a plan until one passes the contract and the plan validator
// (bounded by PlanAttempts), then assigns subtask IDs and journals the dispatch.
func (p *Pipeline) plan(ctx context.Context, rec recorder, in ggs.RoundInput, cal Calibration) (dispatchPlan, error) {
	var blockedTools, blockedTargets []string
	if d := in.Directive; d != nil {
		blockedTools, blockedTargets = d.BlockedTools, d.BlockedTargets
	}
	must := buildMustNot(cal, blockedTools, blockedTargets, p.tools)
	body := planRequest{Task: p.task, Round: in.Round, Directive: in.Directive, MustNot: p.mustNotLines(must),
		ShouldPrefer: nonNil(cal.Exploit), Caution: nonNil(cal.Caution), Previous: p.lastDigest()}
	for _, name := range p.tools {
		body.Tools = append(body.Tools, toolInfo{Name: name, Description: p.specs[name].Description})
	}
	user, err := json.Marshal(body)
	if err != nil {
		return dispatchPlan{}, fmt.Errorf("R2 Planner: encoding the request: %w", err)
	}
	req := llm.ChatRequest{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: plannerPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	if in.Directive != nil {
		p.status(llm.R2, "", fmt.Sprintf("replanning (%s): %s", in.Directive.Directive, in.Directive.Rationale))
	} else {
		p.status(llm.R2, "", "planning")
	}

	m := p.model(llm.R2, rec)
	validate := func(o planOutput) error { return validatePlan(o, p.tools, p.cfg.MaxSubTasks) }
	var out planOutput
	for attempt := 1; ; attempt++ {
		o, resps, err := llm.CompleteJSON(ctx, m, req, validate)
		if err != nil {
			return dispatchPlan{}, fmt.Errorf("R2 Planner: %w", err)
		}
		violations := p.checkPlan(o, must)
		rec.exchange(spine.Exchange{Name: "check:plan", Request: map[string]int{"round": in.Round, "attempt": attempt},
			Response: map[string][]string{"violations": nonNil(violations)}})
		if len(violations) == 0 {
			out = o
			break
		}
		if attempt >= p.cfg.PlanAttempts {
			return dispatchPlan{}, fmt.Errorf("R2 Planner: %d plans in a row broke the MUST NOT set; the last: %s",
				attempt, strings.Join(violations, "; "))
		}
		p.status(llm.R2, "", "plan rejected by the validator; asking again")
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: resps[len(resps)-1].Content},
			llm.Message{Role: llm.RoleUser, Content: "The plan validator rejected this plan:\n- " + strings.Join(violations, "\n- ") +
				"\nAnswer with a new plan, as the same JSON object, that respects every MUST NOT entry and differs from every plan that failed."})
	}
	return p.dispatchOf(rec, out, must, cal), nil
}

// dispatchOf assigns runtime IDs to the planned subtasks (the model's are discarded) and
// journals each SubTask and then the DispatchManifest.
func (p *Pipeline) dispatchOf(rec recorder, out planOutput, must mustNot, cal Calibration) dispatchPlan {
	dp := dispatchPlan{must: must, caution: cal.Caution, signature: signature(out)}
	ids := make([]string, 0, len(out.SubTasks))
	for _, st := range out.SubTasks {
		a := Assignment{SubTask: contract.SubTask{
			SubTaskID: p.cfg.IDs.NewID(), ParentTaskID: p.task.TaskID, Intent: st.Intent,
			SuccessCriteria: st.SuccessCriteria, Context: st.Context, Deadline: st.Deadline, Sequence: st.Sequence,
		}, Tools: st.Tools, Targets: nonNil(st.Targets)}
		dp.assignments = append(dp.assignments, a)
		ids = append(ids, a.SubTaskID)
	}
	for i := range dp.assignments {
		a := dp.assignments[i]
		rec.message(spine.Message{From: "R2", To: "R3", Type: contract.TypeSubTask, Payload: &a})
	}
	task := p.task
	dp.manifest = contract.DispatchManifest{TaskID: p.task.TaskID, SubTaskIDs: ids, TaskSpec: &task,
		DispatchedAt: p.cfg.Clock.Now().UTC().Format(time.RFC3339), TaskCriteria: out.TaskCriteria}
	m := dp.manifest
	rec.message(spine.Message{From: "R2", To: "R4b", Type: contract.TypeDispatchManifest, Payload: &m})
	return dp
}

// checkPlan is the code-side plan validator: no blocked tool, no blocked target, no
// memory Avoid, and not a plan that already failed.
func (p *Pipeline) checkPlan(o planOutput, must mustNot) []string {
	var v []string
	for i, st := range o.SubTasks {
		name := fmt.Sprintf("subtask %d (%q)", i+1, clip(st.Intent, 60))
		for _, t := range st.Tools {
			if why := must.toolBlocked(t); why != "" {
				v = append(v, fmt.Sprintf("%s uses the tool %s, which is %s", name, t, why))
			}
		}
		for _, tgt := range st.Targets {
			for _, t := range st.Tools {
				if why := must.targetBlocked(t, tgt); why != "" {
					v = append(v, fmt.Sprintf("%s points %s at %q, which is %s", name, t, tgt, why))
				}
			}
		}
	}
	sig := signature(o)
	for _, r := range p.rounds {
		if r.signature == sig {
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
		out = append(out, fmt.Sprintf("tool %s (%s)", tool, why))
	}
	for tool, ts := range m.targets {
		for _, t := range ts {
			out = append(out, fmt.Sprintf("%s on %q (%s)", tool, t.value, t.why))
		}
	}
	sort.Strings(out)
	for _, t := range m.text {
		out = append(out, t+" (memory says MUST NOT)")
	}
	return out
}

// lastDigest summarises the previous round for the next plan.
func (p *Pipeline) lastDigest() *roundDigest {
	if len(p.rounds) == 0 {
		return nil
	}
	r := p.rounds[len(p.rounds)-1]
	d := &roundDigest{Round: r.round}
	for i, o := range r.outcomes {
		sd := subtaskDigest{Intent: r.plan[i].Intent, Tools: r.plan[i].Tools, Status: o.Status, ToolCalls: o.ToolCalls}
		for _, v := range o.CriteriaVerdicts {
			if v.Failed() {
				sd.Failed = append(sd.Failed, fmt.Sprintf("%s (%s): %s", v.Criterion, v.Class(), v.Evidence))
			}
		}
		d.SubTasks = append(d.SubTasks, sd)
	}
	if rp := r.report.Replan; rp != nil {
		d.Summary = rp.GapSummary
		for _, v := range rp.TaskCriteriaVerdicts {
			if v.Failed() {
				d.Rejected = append(d.Rejected, fmt.Sprintf("%s: %s", v.Criterion, v.Evidence))
			}
		}
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
		sts[i] = st{Intent: strings.ToLower(strings.Join(strings.Fields(s.Intent), " ")), Criteria: s.SuccessCriteria,
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
