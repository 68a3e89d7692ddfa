package scripted

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
)

// judgeAny is R4a: each criterion judged on the attempt's tool_calls entries.
func judgeAny(req contract.ModelRequest) (string, error) {
	var in struct {
		SubTask struct {
			SuccessCriteria contract.Criteria `json:"success_criteria"`
		} `json:"subtask"`
		Result struct {
			ToolCalls []string `json:"tool_calls"`
		} `json:"execution_result"`
	}
	if err := firstUser(req, &in); err != nil {
		return "", err
	}
	ev := evidenceOf(in.Result.ToolCalls)
	var verdicts []map[string]any
	whatToDo := ""
	for _, c := range in.SubTask.SuccessCriteria.Texts() {
		v := ev.judge(c)
		if v["verdict"] == "fail" && whatToDo == "" {
			whatToDo = "meet the criterion: " + c
		}
		verdicts = append(verdicts, v)
	}
	return judged(whatToDo, verdicts...), nil
}

// mergeAny is R4b: the task's criteria judged on every subtask's tool_calls entries.
func mergeAny(req contract.ModelRequest) (string, error) {
	var in struct {
		Intent       string            `json:"intent"`
		TaskCriteria contract.Criteria `json:"task_criteria"`
		Outcomes     []struct {
			Output    any      `json:"output"`
			ToolCalls []string `json:"tool_calls"`
		} `json:"subtask_outcomes"`
	}
	if err := firstUser(req, &in); err != nil {
		return "", err
	}
	var all []string
	var outputs []any
	for _, o := range in.Outcomes {
		all = append(all, o.ToolCalls...)
		outputs = append(outputs, o.Output)
	}
	ev := evidenceOf(all)
	var verdicts []map[string]any
	for _, c := range in.TaskCriteria.Texts() {
		verdicts = append(verdicts, ev.judge(c))
	}
	summary := fmt.Sprintf("The stand-in (not a model) read %d file(s) and wrote %s for the task %q.",
		ev.readOK, strings.Join(ev.wrote, ", "), in.Intent)
	if len(ev.wrote) == 0 {
		summary = fmt.Sprintf("The stand-in (not a model) wrote no report for the task %q.", in.Intent)
	}
	return js(map[string]any{"summary": summary, "merged": outputs, "verdicts": verdicts}), nil
}

// evidence is what the tool_calls entries show: the listing, the reads, the writes.
type evidence struct {
	list               *contract.ToolCall
	readOK, readNG     int
	firstRead, firstNG string
	wrote              []string // report files written
	writes             map[string]contract.ToolCall
}

func evidenceOf(entries []string) evidence {
	ev := evidence{writes: map[string]contract.ToolCall{}}
	for _, e := range entries {
		tc, ok := contract.ParseToolCall(e)
		if !ok {
			continue
		}
		bad := failedReply(tc.Evidence)
		switch tc.Tool {
		case "list_files":
			tc := tc
			ev.list = &tc
		case "read_file":
			if bad {
				ev.readNG++
				if ev.firstNG == "" {
					ev.firstNG = e
				}
			} else {
				ev.readOK++
				if ev.firstRead == "" {
					ev.firstRead = e
				}
			}
		case "write_file":
			ev.writes[tc.Target] = tc
			if !bad && strings.HasPrefix(tc.Evidence, "wrote ") {
				ev.wrote = append(ev.wrote, tc.Target)
			}
		}
	}
	return ev
}

// judge is one verdict on a criterion of AnyTask's plans; one it did not write fails,
// for it cannot say.
func (ev evidence) judge(criterion string) map[string]any {
	switch {
	case criterion == critListed:
		switch {
		case ev.list == nil:
			return verdict(criterion, "fail", "logical", "no list_files call")
		case failedReply(ev.list.Evidence):
			return verdict(criterion, "fail", "environmental", "list_files:"+ev.list.Target+" → "+ev.list.Evidence)
		}
		return verdict(criterion, "pass", "", "list_files:"+ev.list.Target+" → "+ev.list.Evidence)
	case criterion == critRead:
		switch {
		case ev.list == nil || failedReply(ev.list.Evidence):
			return verdict(criterion, "fail", "environmental", "nothing was listed, so nothing was read")
		case ev.readNG > 0:
			return verdict(criterion, "fail", "environmental", ev.firstNG)
		case ev.readOK == 0:
			return verdict(criterion, "pass", "", "the listing shows no file to read: "+ev.list.Evidence)
		}
		return verdict(criterion, "pass", "", fmt.Sprintf("%d read_file call(s) succeeded, the first: %s", ev.readOK, ev.firstRead))
	case strings.HasSuffix(criterion, " "+critReport):
		report := strings.TrimSuffix(criterion, " "+critReport)
		w, ok := ev.writes[report]
		switch {
		case !ok:
			return verdict(criterion, "fail", "logical", "no write_file call on "+report)
		case failedReply(w.Evidence) || !strings.HasPrefix(w.Evidence, "wrote "):
			return verdict(criterion, "fail", "environmental", "write_file:"+report+" → "+w.Evidence)
		}
		return verdict(criterion, "pass", "", "write_file:"+report+" → "+w.Evidence)
	}
	return verdict(criterion, "fail", "logical", "the stand-in judges only the criteria its own plans write")
}
