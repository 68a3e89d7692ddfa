package contract

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The tool_calls entry of ExecutionResult and SubTaskOutcome is one line,
// "<tool>:<target> → <evidence>". R3's sandbox writes it (FormatToolCall); R4a's
// evidence check and GGS read it (ParseToolCall), so the format lives here, below both.
const (
	// ToolCallEvidenceRunes is how much of a tool's output an entry keeps: its last 120
	// characters.
	ToolCallEvidenceRunes = 120
	// ToolCallTargetRunes bounds the target part of an entry.
	ToolCallTargetRunes = 200

	toolCallArrow      = "→"
	toolCallASCIIArrow = " -> "
	toolCallNoOutput   = "(no output)"
)

// ToolCall is one tool_calls entry taken apart.
type ToolCall struct {
	Tool     string
	Target   string
	Evidence string
}

// FormatToolCall builds a tool_calls entry. Whitespace runs (newlines included) collapse
// to one space; the target is cut to ToolCallTargetRunes and any arrow in it ("→",
// " -> ") is written "=>" so the entry parses back unambiguously; the evidence is the
// last ToolCallEvidenceRunes characters of the collapsed output, or "(no output)".
func FormatToolCall(tool, target, output string) string {
	return tool + ":" + toolCallTarget(target) + " " + toolCallArrow + " " + toolCallEvidence(output)
}

// toolCallTarget is the target as FormatToolCall writes it.
func toolCallTarget(target string) string {
	t := collapseLine(target)
	t = strings.ReplaceAll(t, toolCallArrow, "=>")
	for strings.Contains(t, toolCallASCIIArrow) { // overlapping forms (" -> -> ") need several passes
		t = strings.ReplaceAll(t, toolCallASCIIArrow, " => ")
	}
	if strings.HasSuffix(t, " ->") { // would form " -> " with the separator's space
		t = strings.TrimSuffix(t, "->") + "=>"
	}
	if utf8.RuneCountInString(t) > ToolCallTargetRunes {
		t = string([]rune(t)[:ToolCallTargetRunes-1]) + "…"
	}
	return t
}

// toolCallEvidence is the output as FormatToolCall writes it.
func toolCallEvidence(output string) string {
	e := collapseLine(output)
	if e == "" {
		return toolCallNoOutput
	}
	if n := utf8.RuneCountInString(e); n > ToolCallEvidenceRunes {
		r := []rune(e)
		// A refusal or an error keeps its mark, so that a long reason is still read as
		// one (the evidence check counts successful actions by it).
		for _, mark := range []string{"refused: ", "error: "} {
			if strings.HasPrefix(e, mark) {
				keep := ToolCallEvidenceRunes - len(mark) - 1
				return mark + "…" + strings.TrimSpace(string(r[n-keep:]))
			}
		}
		e = strings.TrimSpace(string(r[n-ToolCallEvidenceRunes:]))
	}
	return e
}

// collapseLine makes text one line: valid UTF-8, whitespace runs as single spaces, trimmed.
func collapseLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// ParseToolCall takes a tool_calls entry apart. The tool ends at the first ':' and must
// be a name (letters, digits, '_', '-', '.'); the target ends at the first "→" or " -> "
// and the evidence is the rest. An entry without an arrow is accepted with empty
// evidence. Parts are trimmed. It reports false when there is no tool: the entries come
// from a model's run and are read as they are, never trusted to be well formed.
func ParseToolCall(entry string) (ToolCall, bool) {
	entry = strings.TrimSpace(entry)
	colon := strings.IndexByte(entry, ':')
	if colon <= 0 {
		return ToolCall{}, false
	}
	tool := strings.TrimSpace(entry[:colon])
	if !isToolName(tool) {
		return ToolCall{}, false
	}
	rest := entry[colon+1:]
	cut, width := -1, 0
	if i := strings.Index(rest, toolCallArrow); i >= 0 {
		cut, width = i, len(toolCallArrow)
	}
	if i := strings.Index(rest, toolCallASCIIArrow); i >= 0 && (cut < 0 || i < cut) {
		cut, width = i, len(toolCallASCIIArrow)
	}
	if cut < 0 {
		return ToolCall{Tool: tool, Target: strings.TrimSpace(rest)}, true
	}
	return ToolCall{Tool: tool, Target: strings.TrimSpace(rest[:cut]), Evidence: strings.TrimSpace(rest[cut+width:])}, true
}

func isToolName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		ok := c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// Key is the "<tool>:<target>" form of a PlanDirective's blocked_targets, or the bare
// tool name when the call had no target.
func (c ToolCall) Key() string {
	if c.Target == "" {
		return c.Tool
	}
	return c.Tool + ":" + c.Target
}

// SplitBlockedTarget parses a blocked_targets entry ("<tool>:<target>") back into its
// tool and target; the target may itself hold colons.
func SplitBlockedTarget(key string) (tool, target string) {
	tool, target, _ = strings.Cut(key, ":")
	return tool, target
}

// How a tool_calls entry's call went, as ReadToolCall tells it.
const (
	ToolCallSucceeded  = "succeeded"  // the call ran and nothing says it failed
	ToolCallRefused    = "refused"    // the runtime or the sandbox did not run it
	ToolCallFailed     = "failed"     // it ran and failed: an I/O error, an exit status, a timeout
	ToolCallUnreadable = "unreadable" // not an entry in the "<tool>:<target> → <evidence>" form
)

// shellTool is the sandbox's shell tool, whose own output may begin "error:".
const shellTool = "shell"

// failedTail matches the markers the sandbox's shell appends to a command that ended badly; a limit
// report may follow them.
var failedTail = regexp.MustCompile(`\[(exit status -?\d+|timed out after [^\]]*)\]( \[limit reached: [^\]]*\])?$`)

// ReadToolCall tells how the call a tool_calls entry records went, from its evidence alone:
// refused when the evidence begins "refused:"; failed when it ends with "[exit status N]"
// or "[timed out after …]" (a shell command, maybe followed by "[limit reached: …]"), or
// begins "error:" and the tool is not the shell (a file tool's I/O error: a command's own
// output may begin so, as grep's does, and the sandbox marks a failed command by its exit
// status); succeeded otherwise. An entry that ParseToolCall cannot read is unreadable,
// which is no record of success either.
//
// The evidence keeps only the last ToolCallEvidenceRunes characters of the output, so a refusal or
// an I/O error whose text is longer than that has lost its prefix and reads as succeeded:
// the answer errs toward success, never toward a failure that did not happen.
func ReadToolCall(entry string) string {
	c, ok := ParseToolCall(entry)
	tool, ev := c.Tool, c.Evidence
	switch {
	case !ok:
		return ToolCallUnreadable
	case strings.HasPrefix(ev, "refused:"):
		return ToolCallRefused
	case failedTail.MatchString(ev), tool != shellTool && strings.HasPrefix(ev, "error:"):
		return ToolCallFailed
	}
	return ToolCallSucceeded
}
