package scripted

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

func ask(model, last string) contract.ModelRequest {
	return contract.ModelRequest{Model: model, Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: "a prompt that holds ROUND-2 but is not the last message"},
		{Role: llm.RoleUser, Content: last},
	}}
}

// TestChatPlaysEachRoleInTurn: a role's n-th request gets its n-th turn whatever the other
// roles do; a turn with tool calls finishes with tool_calls; the script reports what the
// run left unplayed, by role in pipeline order.
func TestChatPlaysEachRoleInTurn(t *testing.T) {
	c := NewChat(Script{
		llm.R2:  {{Content: "plan 1"}, {Content: "plan 2"}},
		llm.R3:  {{ToolCalls: []contract.ModelToolCall{{ID: "c1", Name: "list_files", Arguments: `{}`}}}, {Content: "done"}},
		llm.R4b: {{Content: "merged"}},
	})
	steps := []struct {
		model, content, finish string
		calls                  int
	}{
		{"scripted-R2", "plan 1", "stop", 0},
		{"scripted-R3", "", "tool_calls", 1},
		{"scripted-r3", "done", "stop", 0}, // the role's name in any case
		{"scripted-R2", "plan 2", "stop", 0},
	}
	for i, s := range steps {
		resp, err := c.Complete(context.Background(), ask(s.model, "go"))
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if resp.Content != s.content || resp.FinishReason != s.finish || len(resp.ToolCalls) != s.calls || resp.Model != s.model || resp.Attempts != 1 {
			t.Errorf("step %d: %+v", i+1, resp)
		}
	}
	if got, want := c.Unplayed(), []string{"R4b: 1 of 1 turn(s) not played"}; !reflect.DeepEqual(got, want) {
		t.Errorf("unplayed = %q, want %q", got, want)
	}
}

// TestChatRefuses: each request a script was not written for gets an error that names
// the role, the turn and what was wrong, and does not use up the turn.
func TestChatRefuses(t *testing.T) {
	script := Script{llm.R1: {{Expect: []string{"report.txt", "TODO"}, Content: "ok"}}}
	cases := []struct {
		name, model, last string
		want              string
	}{
		{"another model", "gpt-4o-mini", "report.txt TODO",
			`scripted chat: model "gpt-4o-mini" is not one of the script's (scripted-<role>)`},
		{"an unknown role", "scripted-R9", "report.txt TODO",
			`scripted chat: model "scripted-R9" is not one of the script's (scripted-<role>)`},
		{"a role with no script", "scripted-R2", "report.txt TODO",
			"scripted chat: R2's script has 0 turn(s) and this is request 1"},
		{"a request without the expected text", "scripted-R1", "report.txt only",
			`scripted chat: R1 turn 1 expects its request's last message to contain "TODO"; it reads "report.txt only"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChat(script)
			_, err := c.Complete(context.Background(), ask(tc.model, tc.last))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			if resp, err := c.Complete(context.Background(), ask("scripted-R1", "TODO in report.txt")); err != nil || resp.Content != "ok" {
				t.Fatalf("the turn after a refusal: %+v, %v", resp, err)
			}
			if _, err := c.Complete(context.Background(), ask("scripted-R1", "TODO in report.txt")); err == nil ||
				err.Error() != "scripted chat: R1's script has 1 turn(s) and this is request 2" {
				t.Fatalf("a request past the script: %v", err)
			}
			if u := c.Unplayed(); len(u) != 0 {
				t.Errorf("unplayed = %q", u)
			}
		})
	}
}

func TestChatStopsOnACancelledContext(t *testing.T) {
	c := NewChat(Script{llm.R1: {{Content: "ok"}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(ctx, ask("scripted-R1", "")); err != context.Canceled {
		t.Fatalf("err = %v", err)
	}
	if len(c.Unplayed()) != 1 {
		t.Error("a cancelled request used up a turn")
	}
}

// TestLLMConfigNamesTheScriptedModels: every role resolves to its scripted model name,
// which the Chat answers to, and the configuration names no endpoint and no key.
func TestLLMConfigNamesTheScriptedModels(t *testing.T) {
	cfg := LLMConfig()
	for _, r := range llm.Roles {
		res, err := cfg.For(r)
		if err != nil || res.Model != ModelName(r) {
			t.Errorf("%s: %+v, %v", r, res, err)
		}
		if got, ok := roleOf(res.Model); !ok || got != r {
			t.Errorf("%s: the Chat reads %q as %q", r, res.Model, got)
		}
	}
	if cfg.APIKey != "" || !strings.HasPrefix(cfg.BaseURL, "none:") {
		t.Errorf("key %q, base url %q", cfg.APIKey, cfg.BaseURL)
	}
}

// TestPipelineDemoScriptIsConsistent: R4a and R4b judge exactly the criteria R2's plans
// set, in order, as their contracts require, and the project holds what the report must say.
func TestPipelineDemoScriptIsConsistent(t *testing.T) {
	d := NewPipelineDemo()
	for _, r := range llm.Roles {
		if len(d.Script[r]) == 0 {
			t.Errorf("%s has no turns", r)
		}
	}
	todo := 0
	for _, f := range d.Files {
		if strings.HasPrefix(f.Path, "src/") {
			todo += strings.Count(f.Content, "TODO")
		}
	}
	if d.Want != "3\n" || todo != 3 {
		t.Errorf("the project has %d TODO lines under src/, the demo wants %q", todo, d.Want)
	}
	type plan struct {
		TaskCriteria []string `json:"task_criteria"`
		SubTasks     []struct {
			SuccessCriteria []string `json:"success_criteria"`
		} `json:"subtasks"`
	}
	var plans []plan
	for i, turn := range d.Script[llm.R2] {
		var p plan
		if err := json.Unmarshal([]byte(turn.Content), &p); err != nil || len(p.SubTasks) != 1 {
			t.Fatalf("R2 turn %d: %v, %d subtask(s)", i+1, err, len(p.SubTasks))
		}
		plans = append(plans, p)
	}
	judged := d.Script[llm.R4a]
	for i, turn := range judged {
		p := plans[0] // R4a judges round 1's subtask three times, then round 2's once
		if i == len(judged)-1 {
			p = plans[1]
		}
		if got := criteriaOf(t, turn.Content); !reflect.DeepEqual(got, p.SubTasks[0].SuccessCriteria) {
			t.Errorf("R4a turn %d judges %q, its plan sets %q", i+1, got, p.SubTasks[0].SuccessCriteria)
		}
	}
	if got := criteriaOf(t, d.Script[llm.R4b][0].Content); !reflect.DeepEqual(got, plans[1].TaskCriteria) {
		t.Errorf("R4b judges %q, the plan sets %q", got, plans[1].TaskCriteria)
	}
}

func criteriaOf(t *testing.T, reply string) []string {
	t.Helper()
	var r struct {
		Verdicts []struct {
			Criterion string `json:"criterion"`
		} `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil {
		t.Fatalf("%v in %s", err, reply)
	}
	var out []string
	for _, v := range r.Verdicts {
		out = append(out, v.Criterion)
	}
	return out
}
