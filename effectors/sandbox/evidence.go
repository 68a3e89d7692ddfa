package sandbox

import (
	"strings"
	"unicode/utf8"
)

// Evidence format of R3's tool_calls entries: "<tool>:<target> → <evidence>", one line.
const (
	// EvidenceRunes is how much of a tool's output an entry keeps: its last 120 characters.
	EvidenceRunes = 120
	// TargetRunes bounds the target part of an entry.
	TargetRunes = 200
	arrow       = "→"
	asciiArrow  = " -> "
	noOutput    = "(no output)"
)

// FormatToolCall builds a tool_calls entry. Whitespace runs (newlines included) collapse
// to one space; the target is cut to TargetRunes and any arrow in it ("→", " -> ") is
// written "=>" so the entry parses back unambiguously; the evidence is the last
// EvidenceRunes characters of the collapsed output, or "(no output)".
func FormatToolCall(tool, target, output string) string {
	return tool + ":" + entryTarget(target) + " " + arrow + " " + entryEvidence(output)
}

// entryTarget is the target as FormatToolCall writes it.
func entryTarget(target string) string {
	t := collapse(target)
	t = strings.ReplaceAll(t, arrow, "=>")
	for strings.Contains(t, asciiArrow) { // overlapping forms (" -> -> ") need several passes
		t = strings.ReplaceAll(t, asciiArrow, " => ")
	}
	if strings.HasSuffix(t, " ->") { // would form " -> " with the separator's space
		t = strings.TrimSuffix(t, "->") + "=>"
	}
	if utf8.RuneCountInString(t) > TargetRunes {
		t = string([]rune(t)[:TargetRunes-1]) + "…"
	}
	return t
}

// entryEvidence is the output as FormatToolCall writes it.
func entryEvidence(output string) string {
	e := collapse(output)
	if e == "" {
		return noOutput
	}
	if n := utf8.RuneCountInString(e); n > EvidenceRunes {
		r := []rune(e)
		// A refusal or an error keeps its mark, so that a long reason is still read as
		// one (the evidence check counts successful actions by it).
		for _, mark := range []string{"refused: ", "error: "} {
			if strings.HasPrefix(e, mark) {
				keep := EvidenceRunes - len(mark) - 1
				return mark + "…" + strings.TrimSpace(string(r[n-keep:]))
			}
		}
		e = strings.TrimSpace(string(r[n-EvidenceRunes:]))
	}
	return e
}

// collapse makes text one line: valid UTF-8, whitespace runs as single spaces, trimmed.
func collapse(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// ParseToolCall splits a tool_calls entry into tool, target and evidence. The tool ends
// at the first ':' and must be a name (letters, digits, '_', '-', '.'); the target ends at
// the first "→" or " -> " and the evidence is the rest. An entry without an arrow is
// accepted with empty evidence. Parts are trimmed. ok is false when there is no tool.
func ParseToolCall(entry string) (tool, target, evidence string, ok bool) {
	entry = strings.TrimSpace(entry)
	colon := strings.IndexByte(entry, ':')
	if colon <= 0 {
		return "", "", "", false
	}
	tool = strings.TrimSpace(entry[:colon])
	if !isToolName(tool) {
		return "", "", "", false
	}
	rest := entry[colon+1:]
	cut, width := -1, 0
	if i := strings.Index(rest, arrow); i >= 0 {
		cut, width = i, len(arrow)
	}
	if i := strings.Index(rest, asciiArrow); i >= 0 && (cut < 0 || i < cut) {
		cut, width = i, len(asciiArrow)
	}
	if cut < 0 {
		return tool, strings.TrimSpace(rest), "", true
	}
	return tool, strings.TrimSpace(rest[:cut]), strings.TrimSpace(rest[cut+width:]), true
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
