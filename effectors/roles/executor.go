package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// execRequest is R3's user turn.
type execRequest struct {
	SubTask        contract.Assignment        `json:"subtask"`
	Attempt        int                        `json:"attempt"`
	Correction     *contract.CorrectionSignal `json:"correction"`
	BlockedTargets []string                   `json:"blocked_targets,omitempty"`
	Caution        []string                   `json:"caution,omitempty"`
}

// execution is one R3 attempt: the result for R4a, and whether it failed for want of a
// working model (then R4a has nothing to judge).
type execution struct {
	result contract.ExecutionResult
	infra  error
}

// execute runs R3 on one attempt of a subtask: a function-calling conversation over the
// tools the plan gave the subtask, ending in R3's JSON answer. tool_calls entries are
// built by the runtime from what the tools did, never taken from the model.
func (p *Pipeline) execute(ctx context.Context, rec recorder, post *bus.Post, a contract.Assignment, attempt int, corr *contract.CorrectionSignal, g guard) (execution, error) {
	res := contract.ExecutionResult{SubTaskID: a.SubTaskID, ToolCalls: []string{}}
	allowed := map[string]bool{}
	var tools []contract.ModelTool
	for _, name := range a.Tools {
		if spec, ok := p.specs[name]; ok && !g.must.toolBlocked(name).blocked() {
			allowed[name] = true
			tools = append(tools, contract.ModelTool(spec))
		}
	}
	body := execRequest{SubTask: a, Attempt: attempt, Correction: corr, Caution: g.cautionLines()}
	for _, name := range a.Tools {
		for _, t := range g.must.targets[name] {
			body.BlockedTargets = append(body.BlockedTargets, name+":"+t.value)
		}
	}
	user, err := json.Marshal(body)
	if err != nil {
		return execution{}, fmt.Errorf("R3 Executor: encoding the request: %w", err)
	}
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: executorPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Tools: tools, Temperature: zero()}
	m := p.model(llm.R3, rec)
	late := &lateCheck{asked: map[contract.ToolTarget]bool{}}
	corrected := false
	for turn := 1; turn <= p.cfg.ToolTurns; turn++ {
		p.status(llm.R3, a.SubTaskID, fmt.Sprintf("attempt %d: %s", attempt, clip(a.Intent, 60)))
		fitConversation(&req)
		resp, err := m.Complete(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return execution{}, ctx.Err()
			}
			res.Status, res.Output = contract.ExecFailed, "the executor's model call failed: "+err.Error()
			return execution{result: res, infra: err}, nil
		}
		if len(resp.ToolCalls) > 0 {
			// A call the endpoint sent without an id gets one before the assistant turn is
			// sent back, so that each tool message names a call of that turn.
			calls := slices.Clone(resp.ToolCalls)
			oversized := map[int]int{} // call index → its arguments' size, when over the limit
			for i := range calls {
				if calls[i].ID == "" {
					calls[i].ID = fmt.Sprintf("call-%d-%d", turn, i+1)
				}
				// Arguments over the limit are not run, journalled or sent back: the
				// conversation keeps a placeholder naming their size.
				if n := len(calls[i].Arguments); n > contract.MaxToolArguments {
					oversized[i] = n
					calls[i].Arguments = omittedArguments(n)
				}
			}
			req.Messages = append(req.Messages, llm.AssistantTurn(resp.Content, calls))
			for i, tc := range calls {
				reply, entry, err := p.callTool(ctx, rec, post, a, tc, oversized[i], allowed, g, late)
				if f := toolFault(err); f != nil {
					// The tool's server is gone: a fault, decided by the rules.
					res.ToolCalls = append(res.ToolCalls, entry)
					res.Status, res.Output = contract.ExecFailed, f.Error()
					return execution{result: res, infra: f}, nil
				}
				if err != nil {
					return execution{}, err
				}
				res.ToolCalls = append(res.ToolCalls, entry)
				req.Messages = append(req.Messages, contract.ModelMessage{Role: llm.RoleTool, Content: reply, ToolCallID: tc.ID})
			}
			continue
		}
		ans, perr := parseOutput(resp.Content, execAnswer.validate)
		if resp.Content == "" && resp.Refusal != "" {
			perr = fmt.Errorf("the model refused instead of answering: %q", resp.Refusal)
		}
		if perr == nil {
			res.Status, res.Output = ans.Status, ans.Output
			return execution{result: res}, nil
		}
		if corrected {
			res.Status, res.Output = contract.ExecFailed, "the executor's answer was unusable twice: "+perr.Error()
			return execution{result: res}, nil
		}
		corrected = true
		req.Messages = append(req.Messages,
			llm.AssistantTurn(resp.Content, nil),
			contract.ModelMessage{Role: llm.RoleUser, Content: fmt.Sprintf("Your reply could not be used: %v. Call a tool, or answer with only the JSON object {\"status\": ..., \"output\": ...}.", perr)})
	}
	res.Status, res.Output = contract.ExecFailed, fmt.Sprintf("no final answer within %d model turns", p.cfg.ToolTurns)
	return execution{result: res}, nil
}

// callTool runs one tool call of R3 after the runtime's own checks (the tool is in the
// subtask's plan and not blocked, the target is not blocked, caution is confirmed), and
// journals it. It returns the text the model sees and the tool_calls entry. Only a
// cancelled context is an error: a refusal or a failing command is a result.
func (p *Pipeline) callTool(ctx context.Context, rec recorder, post *bus.Post, a contract.Assignment, tc contract.ModelToolCall, oversized int, allowed map[string]bool, g guard, late *lateCheck) (string, string, error) {
	tgt := p.callTarget(tc.Name, tc.Arguments)
	x := engine.Exchange{Name: "tool:" + tc.Name, Request: contract.ToolRequest{ID: tc.ID, Arguments: tc.Arguments}}
	refuse := func(why string) (string, string, error) {
		out := "refused: " + why
		r := contract.ToolResponse{Tool: tc.Name, Target: tgt, Output: out, ExitCode: -1, Refused: true,
			Evidence: contract.FormatToolCall(tc.Name, tgt, out)}
		if ok, _, err := served(ctx, rec, x.Name, x.Request, nil); err != nil || ok {
			return out, r.Evidence, err
		}
		x.Response, x.Error = r, why
		rec.exchange(x)
		return out, r.Evidence, nil
	}
	if oversized > 0 {
		return refuse(fmt.Sprintf("the arguments are %d bytes, over the %d-byte limit of a tool call; send large content in smaller parts",
			oversized, contract.MaxToolArguments))
	}
	switch why := g.must.toolBlocked(tc.Name); {
	case !allowed[tc.Name] && why.verdict != nil:
		return refuse(fmt.Sprintf("the tool %s, %s", tc.Name, why.which()))
	case !allowed[tc.Name] && why.blocked():
		return refuse(fmt.Sprintf("the tool %s is %s", tc.Name, why.why))
	case !allowed[tc.Name]:
		return refuse(fmt.Sprintf("the tool %s is not in this subtask's plan (its tools: %s)", tc.Name, strings.Join(a.Tools, ", ")))
	}
	if err := p.askLate(ctx, rec, post, &g, late, tc.Name, tgt); err != nil {
		return "", "", err
	}
	switch why := g.must.targetBlocked(tc.Name, tgt); {
	case why.verdict != nil:
		return refuse(fmt.Sprintf("the tool %s on %s, %s", tc.Name, tgt, why.which()))
	case why.blocked():
		return refuse(fmt.Sprintf("%s on %q is %s", tc.Name, tgt, why.why))
	}
	if ru, v := cautionRuling(g, tc.Name, tgt); ru != nil {
		// The rules ruled on the pair in OBSERVE: their ruling, with the rule's name, is
		// on record beside the call.
		rec.exchange(engine.Exchange{Name: trace.ExchangeCheck + "caution",
			Request:  map[string]string{"tool": tc.Name, "target": tgt, "pair": v.Pair},
			Response: map[string]string{"ruling": ru.Ruling, "rule": ru.Rule, "policy": ru.Policy}})
		if ru.Ruling == ggs.RulingRefuse {
			reason := fmt.Sprintf("memory advises caution for %s on %s %s, refused by rule %s", tc.Name, tgt, v.cite(), ru.Rule)
			ok := false
			if p.cfg.Caution != nil {
				var err error
				ok, err = p.cfg.Caution.Confirm(ctx, sandbox.Confirmation{Tool: tc.Name, Command: tgt, Reasons: []string{reason, v.Text}})
				if ctx.Err() != nil {
					return "", "", ctx.Err()
				}
				ok = ok && err == nil
			}
			if !ok {
				return refuse("not confirmed: " + reason)
			}
		}
	} else if reasons := cautionReasons(g.cal, tc.Name, tgt); len(reasons) > 0 && p.cfg.Caution != nil {
		ok, err := p.cfg.Caution.Confirm(ctx, sandbox.Confirmation{Tool: tc.Name, Command: tgt, Reasons: reasons})
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		if err != nil || !ok {
			return refuse("not confirmed: " + reasons[0])
		}
	}
	p.status(llm.R3, a.SubTaskID, clip(tc.Name+" "+tgt, 70))
	var r contract.ToolResponse
	ok, err, stop := served(ctx, rec, x.Name, x.Request, &r)
	if stop != nil {
		return "", "", stop
	}
	if !ok {
		start := p.cfg.Clock.Now()
		r, err = p.cfg.Tools.Call(ctx, tc.Name, []byte(tc.Arguments))
		x.DurationMS = p.cfg.Clock.Now().Sub(start).Milliseconds()
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		x.Response = r
		if err != nil {
			x.Error = err.Error()
		}
		rec.exchange(x)
	}
	if serr := p.snapshotAfterTool(ctx, rec, a.SubTaskID, tc.Name, tc.ID); serr != nil {
		return "", "", serr
	}
	entry := r.Evidence
	if entry == "" {
		entry = contract.FormatToolCall(tc.Name, tgt, r.Output)
	}
	if f := toolFault(err); f != nil {
		return toolReply(r, err), entry, f
	}
	return toolReply(r, err), entry, nil
}

// lateCheck is what one subtask attempt asked memory about targets the plan did not
// name. It belongs to one attempt, so parallel subtasks ask alike whatever their timing.
type lateCheck struct {
	asked map[contract.ToolTarget]bool
	cal   Calibration
}

// askLate asks memory about a tool call's target when the round's calibration did not
// cover it (R3 chose a target the plan did not name), and adds the answer to g.
func (p *Pipeline) askLate(ctx context.Context, rec recorder, post *bus.Post, g *guard, late *lateCheck, tool, tgt string) error {
	tt := contract.ToolTarget{Tool: tool, Target: tgt}
	if p.cfg.Memory == nil || strings.TrimSpace(tgt) == "" || g.cal.asked[tt] || g.cal.hasVerdict(tool, tgt) {
		return nil
	}
	if !late.asked[tt] {
		late.asked[tt] = true
		more, err := p.calibrate(ctx, rec, post, contract.MemoryQuery{Tools: []string{}, Targets: []contract.ToolTarget{tt}})
		if err != nil {
			return err
		}
		late.cal.merge(more)
	}
	if len(late.cal.Verdicts) == 0 {
		return nil
	}
	merged := g.cal
	merged.Verdicts = append(append([]Verdict{}, g.cal.Verdicts...), late.cal.Verdicts...)
	g.cal = merged
	// The round's map is shared by every subtask: extend a copy.
	targets := make(map[string][]target, len(g.must.targets))
	for tool, ts := range g.must.targets {
		targets[tool] = ts
	}
	for tool, ts := range buildMustNot(late.cal, nil, nil, p.tools).targets {
		targets[tool] = append(append([]target{}, targets[tool]...), ts...)
	}
	g.must.targets = targets
	return nil
}

// cautionRuling is the rules' ruling on memory's Caution verdict for a tool call, with
// the verdict; nil when memory advises no caution for it or the rules did not see its pair.
func cautionRuling(g guard, tool, tgt string) (*ggs.Ruling, *Verdict) {
	v := g.cal.cautionFor(tool, tgt)
	if v == nil {
		return nil, nil
	}
	ru, ok := g.rulings[v.Pair]
	if !ok {
		return nil, nil
	}
	return &ru, v
}

// cautionReasons says why a tool call needs confirmation, first reason first: memory's
// Caution verdict on the tool or its target, else a Caution on the intent, which gates
// shell and write_file calls. None: no confirmation.
func cautionReasons(cal Calibration, tool, tgt string) []string {
	if v := cal.cautionFor(tool, tgt); v != nil {
		thing := "the tool " + tool
		if v.Target != "" {
			thing += " on " + v.Target
		}
		return []string{fmt.Sprintf("memory advises caution for %s %s", thing, v.cite()), v.Text}
	}
	if len(cal.Caution) > 0 && (tool == sandbox.ToolShell || tool == sandbox.ToolWriteFile) {
		return append([]string{"memory advises caution for this intent"}, cal.Caution...)
	}
	return nil
}

// toolReply is what the model reads back from a tool call.
func toolReply(r contract.ToolResponse, err error) string {
	var b strings.Builder
	switch {
	case r.Refused && err != nil && !strings.HasPrefix(r.Output, "refused"):
		b.WriteString("refused: " + err.Error())
	case r.Refused:
		b.WriteString(r.Output)
	case err != nil:
		b.WriteString("error: " + err.Error() + "\n" + r.Output)
	default:
		if r.TimedOut {
			b.WriteString("[timed out]\n")
		}
		if r.ExitCode != 0 {
			fmt.Fprintf(&b, "[exit status %d]\n", r.ExitCode)
		}
		if r.Truncated {
			b.WriteString("[output truncated]\n")
		}
		b.WriteString(r.Output)
	}
	return b.String()
}

// targetOf reads the target of a tool call from its arguments, the way the sandbox names
// it in the tool_calls entry: the command of a shell call, the path of a file call, and
// the directory joined with the glob of a listing.
func targetOf(tool, args string) string {
	var a struct {
		Command   *string `json:"command"`
		Path      *string `json:"path"`
		Pattern   string  `json:"pattern"`
		Recursive bool    `json:"recursive"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return ""
	}
	switch {
	case tool == sandbox.ToolShell:
		if a.Command != nil {
			return *a.Command
		}
	case tool == sandbox.ToolListFiles:
		dir, pattern := ".", a.Pattern
		if a.Path != nil && *a.Path != "" {
			dir = *a.Path
		}
		if pattern == "" {
			pattern = "*"
		}
		if a.Recursive {
			return path.Join(dir, "**", pattern)
		}
		return path.Join(dir, pattern)
	case a.Path != nil:
		return *a.Path
	}
	return ""
}

// sameTarget compares two targets of one tool: commands by their words, paths after
// lexical cleaning, listings with the default glob ("config/*") the same as their
// directory ("config").
func sameTarget(tool, a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if tool == sandbox.ToolShell {
		return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
	}
	if a == "" || b == "" {
		return a == b
	}
	norm := func(p string) string {
		p = path.Clean(p)
		if tool == sandbox.ToolListFiles {
			p = strings.TrimSuffix(p, "/*")
			if p == "*" {
				p = "."
			}
		}
		return p
	}
	return norm(a) == norm(b)
}
