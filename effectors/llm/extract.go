package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// ErrNoJSON is wrapped by every ExtractJSON failure.
var ErrNoJSON = errors.New("no usable JSON in the model output")

// thinkTags are the reasoning-block tags that models wrap their chain of thought in.
var thinkTags = [][2]string{{"<think>", "</think>"}, {"<thinking>", "</thinking>"}}

// excerptRunes bounds the excerpts quoted in extraction errors.
const excerptRunes = 80

// StripThinkBlocks removes reasoning blocks from a completion: every <think>…</think>
// pair, an unclosed <think> and everything after it (the model ran out of tokens while
// thinking), and everything up to a leading </think> whose opening tag was part of the
// prompt template (as some servers do for reasoning models).
func StripThinkBlocks(text string) string {
	for _, tag := range thinkTags {
		text = stripTag(text, tag[0], tag[1])
	}
	return text
}

func stripTag(text, open, close string) string {
	if c := strings.Index(text, close); c >= 0 {
		if o := strings.Index(text, open); o < 0 || o > c {
			text = text[c+len(close):]
		}
	}
	var b strings.Builder
	for {
		o := strings.Index(text, open)
		if o < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:o])
		rest := text[o+len(open):]
		c := strings.Index(rest, close)
		if c < 0 {
			return b.String()
		}
		text = rest[c+len(close):]
	}
}

// fencedBlocks returns the bodies of the ``` code fences in text, in order; an
// unterminated last fence runs to the end of the text.
func fencedBlocks(text string) []string {
	var blocks []string
	for {
		o := strings.Index(text, "```")
		if o < 0 {
			return blocks
		}
		rest := text[o+3:]
		// The info string ("json", "JSON", …) runs to the end of the opening line.
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		c := strings.Index(rest, "```")
		if c < 0 {
			return append(blocks, rest)
		}
		blocks = append(blocks, rest[:c])
		text = rest[c+3:]
	}
}

// ExtractJSON returns the first complete JSON object or array in a model's output, after
// removing think blocks (see StripThinkBlocks). JSON inside code fences is preferred to
// JSON in the surrounding prose. The error says what was found instead, with an excerpt.
func ExtractJSON(text string) ([]byte, error) {
	body := StripThinkBlocks(text)
	if strings.TrimSpace(body) == "" {
		if strings.TrimSpace(text) != "" {
			return nil, fmt.Errorf("%w: the output holds only a reasoning block (%d bytes), no answer after it", ErrNoJSON, len(text))
		}
		return nil, fmt.Errorf("%w: the output is empty", ErrNoJSON)
	}
	var firstProblem error
	for _, block := range fencedBlocks(body) {
		v, problem := firstJSON(block)
		if v != nil {
			return v, nil
		}
		if firstProblem == nil {
			firstProblem = problem
		}
	}
	v, problem := firstJSON(body)
	if v != nil {
		return v, nil
	}
	if firstProblem == nil {
		firstProblem = problem
	}
	if firstProblem == nil {
		firstProblem = fmt.Errorf("no JSON object or array; the output reads %s", excerpt(body, 0))
	}
	return nil, fmt.Errorf("%w: %v", ErrNoJSON, firstProblem)
}

// firstJSON returns the first bracketed span of s that is valid JSON. Only brackets that
// can open JSON count ('{' before '"' or '}', '[' before a value or ']'), so prose such as
// "[see below]" is passed over. A span that closes but does not parse is skipped whole:
// the values nested in it are parts of a broken answer, not answers. A span that never
// closes ends the search (the output was cut off). When nothing is found, the problem of
// the first candidate is described (nil when there was none). Every byte is scanned at
// most once or twice, so the work is linear in len(s).
func firstJSON(s string) ([]byte, error) {
	var problem error
	for i := 0; i < len(s); i++ {
		if !opensJSON(s, i) {
			continue
		}
		end, closed := matchBrackets(s, i)
		cand := s[i:end]
		if closed && json.Valid([]byte(cand)) {
			return []byte(strings.Clone(cand)), nil
		}
		if problem == nil {
			problem = describeBad(s, i, cand, closed)
		}
		if !closed {
			break
		}
		i = end - 1
	}
	return nil, problem
}

// opensJSON tells whether the bracket at s[i] can start a JSON object or array.
func opensJSON(s string, i int) bool {
	if s[i] != '{' && s[i] != '[' {
		return false
	}
	j := i + 1
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	if j == len(s) {
		return true // cut off right after the bracket
	}
	next := s[j]
	if s[i] == '{' {
		return next == '"' || next == '}'
	}
	return strings.IndexByte("{[\"]-0123456789tfn", next) >= 0
}

func describeBad(s string, at int, cand string, closed bool) error {
	if !closed {
		return fmt.Errorf("the JSON starting at offset %d is cut off before its closing bracket (truncated output?): %s", at, excerpt(s, at))
	}
	var v any
	err := json.Unmarshal([]byte(cand), &v)
	if err == nil {
		err = errors.New("mismatched brackets")
	}
	return fmt.Errorf("the text at offset %d looks like JSON but does not parse (%v): %s", at, err, excerpt(s, at))
}

// matchBrackets scans from s[start] (a '{' or '[') to the bracket that closes it,
// skipping string literals. It returns the end offset (exclusive) and whether the span
// closed; a wrong closing bracket ends the span as closed (json.Valid then rejects it).
func matchBrackets(s string, start int) (int, bool) {
	var stack []byte
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return i + 1, true
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, true
			}
		}
	}
	return len(s), false
}

// excerpt quotes up to excerptRunes runes of s from byte offset at, one line.
func excerpt(s string, at int) string {
	s = strings.TrimSpace(s[at:])
	n, i := 0, 0
	for i < len(s) && n < excerptRunes {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	if i < len(s) {
		return fmt.Sprintf("%q…", s[:i])
	}
	return fmt.Sprintf("%q", s)
}

// AssistantTurn is the assistant message that carries a completion back into the
// conversation: the model's reasoning (a reasoning field, and <think> blocks in the
// content) is recorded in the exchange but never sent to the next turn.
func AssistantTurn(content string, calls []contract.ModelToolCall) contract.ModelMessage {
	return contract.ModelMessage{Role: RoleAssistant, Content: StripThinkBlocks(content), ToolCalls: calls}
}
