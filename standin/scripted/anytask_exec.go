package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// The executor's bounds: how many files it reads and how many lines its report quotes.
const (
	maxReadFiles    = 20
	maxQuotedLines  = 40
	maxReportedRead = 64 << 10
)

// survey is what an R3 conversation has done so far, read back from its own turns.
type survey struct {
	listed    bool
	listReply string
	files     []string          // the files the listing shows, in its order
	read      map[string]string // path → read_file's reply
	readOrder []string
	written   bool
	writeOut  string
}

// executeAny is R3: list, read, write, answer — the next step is the first not yet in
// the conversation.
func executeAny(req contract.ModelRequest) (string, []contract.ModelToolCall, error) {
	var in struct {
		SubTask struct {
			Intent  string   `json:"intent"`
			Context string   `json:"context"`
			Targets []string `json:"targets"`
		} `json:"subtask"`
	}
	if err := firstUser(req, &in); err != nil {
		return "", nil, err
	}
	report := ""
	for _, t := range in.SubTask.Targets {
		if t != "." {
			report = t
		}
	}
	if report == "" {
		return js(map[string]any{"status": "failed", "output": "the subtask names no report file among its targets"}), nil, nil
	}
	s := readSurvey(req, report)
	turn := assistantTurns(req) + 1
	id := func(i int) string { return fmt.Sprintf("standin-%d-%d", turn, i+1) }
	switch {
	case !s.listed:
		return "", []contract.ModelToolCall{call(id(0), "list_files", map[string]any{"path": ".", "recursive": true})}, nil
	case failedReply(s.listReply):
		return js(map[string]any{"status": "failed", "output": "list_files: " + s.listReply}), nil, nil
	}
	var next []contract.ModelToolCall
	for _, f := range s.files {
		if _, done := s.read[f]; !done && len(s.read)+len(next) < maxReadFiles {
			next = append(next, call(id(len(next)), "read_file", map[string]any{"path": f}))
		}
	}
	if len(next) > 0 {
		return "", next, nil
	}
	if !s.written {
		return "", []contract.ModelToolCall{call(id(0), "write_file", map[string]any{"path": report, "content": s.report(taskOf(in.SubTask.Context, in.SubTask.Intent))})}, nil
	}
	out := map[string]any{"listed": len(s.files), "read": len(s.readOrder), "report": report, "write_file": s.writeOut}
	if failedReply(s.writeOut) {
		return js(map[string]any{"status": "failed", "output": out}), nil, nil
	}
	return js(map[string]any{"status": "completed", "output": out}), nil, nil
}

// readSurvey reads the conversation's tool calls and their replies.
func readSurvey(req contract.ModelRequest, report string) survey {
	s := survey{read: map[string]string{}}
	replies := map[string]string{}
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			replies[m.ToolCallID] = m.Content
		}
	}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			reply, answered := replies[tc.ID]
			if !answered {
				continue
			}
			var args struct {
				Path string `json:"path"`
			}
			_ = json.Unmarshal([]byte(tc.Arguments), &args) // its own calls: they always decode
			switch tc.Name {
			case "list_files":
				s.listed, s.listReply = true, reply
				s.files = listedFiles(reply, report)
			case "read_file":
				if _, seen := s.read[args.Path]; !seen {
					s.readOrder = append(s.readOrder, args.Path)
				}
				s.read[args.Path] = reply
			case "write_file":
				s.written, s.writeOut = true, reply
			}
		}
	}
	return s
}

// listedFiles are the regular files of a list_files reply (directories end in "/",
// symlinks in "@"), the report itself left out.
func listedFiles(reply, report string) []string {
	var out []string
	for _, l := range strings.Split(reply, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == report || strings.HasPrefix(l, "[") || strings.HasPrefix(l, "(") ||
			strings.HasSuffix(l, "/") || strings.HasSuffix(l, "@") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// failedReply reports a tool reply that is a refusal or an error, as the runtime marks them.
func failedReply(reply string) bool {
	return strings.HasPrefix(reply, "refused: ") || strings.HasPrefix(reply, "error: ")
}

// taskOf is the task's words from the plan's context ("The task: ..."), else the intent.
func taskOf(context, intent string) string {
	if rest, ok := strings.CutPrefix(context, "The task: "); ok {
		task, _, _ := strings.Cut(rest, "\n")
		return task
	}
	return intent
}

// report is the report file's text: the files read and their lines that mention the
// task's words.
func (s survey) report(task string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Report\n\nWritten by spine's stand-in (scripted.AnyTask), not by a model: it lists the files and quotes the lines that mention the task's words.\n\nTask: %s\n\n", task)
	fmt.Fprintf(&b, "Files read (%d):\n", len(s.readOrder))
	for _, f := range s.readOrder {
		reply := s.read[f]
		if failedReply(reply) {
			fmt.Fprintf(&b, "- %s: %s\n", f, strings.TrimSpace(reply))
			continue
		}
		fmt.Fprintf(&b, "- %s: %d line(s)\n", f, strings.Count(strings.TrimRight(reply, "\n"), "\n")+1)
	}
	words := taskWords(task)
	fmt.Fprintf(&b, "\nLines that mention %s:\n", quoteWords(words))
	quoted := 0
	for _, f := range s.readOrder {
		reply := s.read[f]
		if failedReply(reply) || len(reply) > maxReportedRead {
			continue
		}
		for i, line := range strings.Split(reply, "\n") {
			low := strings.ToLower(line)
			if quoted < maxQuotedLines && slices.ContainsFunc(words, func(w string) bool { return strings.Contains(low, w) }) {
				fmt.Fprintf(&b, "- %s:%d: %s\n", f, i+1, strings.TrimSpace(line))
				quoted++
			}
		}
	}
	if quoted == 0 {
		b.WriteString("- none\n")
	}
	return b.String()
}

// stopWords are the words a task's text has that say nothing of what to look for.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "this": true, "that": true, "with": true, "from": true,
	"into": true, "all": true, "any": true, "are": true, "its": true, "what": true, "which": true,
	"there": true, "their": true, "them": true, "then": true, "each": true, "every": true,
	"file": true, "files": true, "repository": true, "repo": true, "project": true, "directory": true,
	"write": true, "read": true, "list": true, "find": true, "show": true, "tell": true, "give": true,
	"summarise": true, "summarize": true, "summary": true, "count": true, "report": true, "please": true,
}

// taskWords are the words of the task to look for: lower case, three letters or more,
// a plural's "s" dropped, in order, once each.
func taskWords(task string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 || stopWords[w] {
			continue
		}
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func quoteWords(words []string) string {
	if len(words) == 0 {
		return "the task's words (it has none to look for)"
	}
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}
