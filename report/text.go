package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// sortedKV lists a JSON object's members by name, each value as compact JSON (a
// string without its quotes). Absent or null is no members.
func sortedKV(raw json.RawMessage) ([]KV, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]KV, len(keys))
	for i, k := range keys {
		v := compactJSON(m[k])
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			v = s
		}
		out[i] = KV{Key: k, Value: v}
	}
	return out, nil
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// readable is a message's text, indented when it is a JSON object or array (roles
// talk JSON), as it is otherwise.
func readable(s string) string {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, []byte(t), "", "  ") != nil {
		return s
	}
	return b.String()
}

// oneLine folds s onto one line and cuts it to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// decodeRaw decodes a recorded value into v; an absent value is left as it is.
func decodeRaw(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
