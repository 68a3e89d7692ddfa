package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
	"github.com/spf13/cobra"
)

// `spine trace diff A B` says where two traces part: the first differing event (found by
// replay.CompareTraces) and, kind by kind, what each side decided, sent and exchanged.
// Events are compared without their timestamp and hash-chain link: the link differs on
// every line after any difference, and two live runs never share a clock.

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		return &cobra.Command{
			Use:   "diff [flags] A B",
			Short: "compare two traces: the first differing event, then decisions, messages and exchanges side by side (exit 0 identical, 1 different)",
			RunE: func(c *cobra.Command, args []string) error {
				return exitStatus(runTraceDiff(io, args))
			},
		}
	})
}

// diffExcerpt bounds how much of a differing value is quoted.
const diffExcerpt = 160

// diffSide is one trace as the diff reads it.
type diffSide struct {
	path      string
	header    *trace.Event
	events    []trace.Event // every event after the header
	decisions []string      // "cycle N: rule → objective", one per rule firing
	messages  []string      // "from → to type"
	exchanges []string      // exchange names
}

func runTraceDiff(io stdio, args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(io.err, "spine trace diff: expected two trace files, A and B")
		return exitUsage
	}
	var sides [2]*diffSide
	for i, path := range args {
		s, err := readDiffSide(path, io.err)
		if err != nil {
			fmt.Fprintf(io.err, "spine trace diff: %s\n", linecap.BoundQuotes(err.Error()))
			return exitFail
		}
		sides[i] = s
	}
	a, b := sides[0], sides[1]
	printLine(io.out, "A %s: %d events", a.path, len(a.events))
	printLine(io.out, "B %s: %d events", b.path, len(b.events))

	differ := false
	if d := diffLines(lineList(a.header), lineList(b.header), true); d != nil {
		differ = true
		fmt.Fprintf(io.out, "header: %s\n", describeDiff(d, a.header, b.header))
	}
	switch d := diffLines(a.events, b.events, true); {
	case d != nil:
		differ = true
		fmt.Fprintf(io.out, "first differing event: %s\n", describeDiff(d, at(a.events, d.Line-1), at(b.events, d.Line-1)))
	default:
		if differ {
			break
		}
		la, lb := append(lineList(a.header), a.events...), append(lineList(b.header), b.events...)
		if d := diffLines(la, lb, false); d != nil {
			differ = true
			fmt.Fprintf(io.out, "the same apart from their timestamps; first at %s\n", describeDiff(d, at(la, d.Line-1), at(lb, d.Line-1)))
		}
	}
	if !differ {
		fmt.Fprintln(io.out, "identical")
		return exitOK
	}
	summarize(io.out, "decisions", a.decisions, b.decisions)
	summarize(io.out, "messages", a.messages, b.messages)
	summarize(io.out, "exchanges", a.exchanges, b.exchanges)
	return exitFail
}

func lineList(l *trace.Event) []trace.Event {
	if l == nil {
		return nil
	}
	return []trace.Event{*l}
}

func at(ls []trace.Event, i int) *trace.Event {
	if i < 0 || i >= len(ls) {
		return nil
	}
	return &ls[i]
}

// readDiffSide reads a trace and the three sequences the summary compares. A torn last
// line is reported on warn and left out, as every reader does.
func readDiffSide(path string, warn io.Writer) (*diffSide, error) {
	tf, err := readTraceFile("diff", path, warn)
	if err != nil {
		return nil, err
	}
	s := &diffSide{path: path}
	for i := range tf.Events {
		e := &tf.Events[i]
		if i == 0 && e.Kind == trace.KindHeader {
			s.header = e
			continue
		}
		s.events = append(s.events, *e)
		switch b := e.Body.(type) {
		case trace.RuleFired:
			d := fmt.Sprintf("cycle %d: %s", b.Cycle, b.Rule)
			if b.Then != nil && b.Then.Objective != "" {
				d += " → " + b.Then.Objective
			}
			s.decisions = append(s.decisions, d)
		case trace.Message:
			s.messages = append(s.messages, fmt.Sprintf("%s → %s %s", b.From, b.To, b.Type))
		case trace.Exchange:
			s.exchanges = append(s.exchanges, b.Name)
		}
	}
	return s, nil
}

// diffLines compares two runs of lines with replay.CompareTraces, each line without its
// hash-chain link and, when noClock, without its timestamp.
func diffLines(a, b []trace.Event, noClock bool) *replay.TraceDiff {
	return replay.CompareTraces(comparable(a, noClock), comparable(b, noClock), 0)
}

func comparable(ls []trace.Event, noClock bool) []byte {
	var buf bytes.Buffer
	for _, l := range ls {
		raw := l.Raw
		if noClock {
			raw = withoutKey(raw, "t")
		}
		buf.Write(raw)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// withoutKey re-encodes a JSON object without one top-level key, numbers kept as
// written; a line that is not an object is returned as it is.
func withoutKey(raw []byte, key string) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return raw
	}
	delete(m, key)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return raw
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

// describeDiff names where a difference is: the line in each file, the event's kind and
// seq, the field and both values (quoted up to diffExcerpt runes).
func describeDiff(d *replay.TraceDiff, la, lb *trace.Event) string {
	where := func(l *trace.Event) string {
		if l == nil {
			return "(end of trace)"
		}
		return fmt.Sprintf("line %d (seq %d, %s)", l.Line, l.Seq, l.Kind)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A %s, B %s", where(la), where(lb))
	if la != nil && lb != nil && la.Kind != lb.Kind {
		// Fields of two kinds of event do not compare; their kinds are the difference.
		return b.String()
	}
	if d.Field != "" {
		fmt.Fprintf(&b, "\n  field %s", termtext.Line(d.Field))
	}
	fmt.Fprintf(&b, "\n  A: %s\n  B: %s", termtext.Line(excerpt(d.Recorded)), termtext.Line(excerpt(d.Replayed)))
	return b.String()
}

func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= diffExcerpt {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s… (%d bytes)", string(r[:diffExcerpt]), len(s))
}

// summarize prints one kind's counts on each side, its per-key counts where they differ,
// and the first position where the two sequences differ. A sequence compares decisions by
// cycle, rule and objective, messages by sender, receiver and type, exchanges by name:
// what was decided and who spoke, not every byte (the first differing event has that).
func summarize(w io.Writer, kind string, a, b []string) {
	fmt.Fprintf(w, "%s: A %d, B %d", kind, len(a), len(b))
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		fmt.Fprintln(w, "; the same sequence")
		return
	}
	fmt.Fprintln(w)
	if kind != "decisions" {
		ca, cb := countKeys(kind, a), countKeys(kind, b)
		keys := []string{}
		for k := range ca {
			keys = append(keys, k)
		}
		for k := range cb {
			if _, ok := ca[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if ca[k] != cb[k] {
				printLine(w, "  %-28s A %d, B %d", k, ca[k], cb[k])
			}
		}
	}
	item := func(s []string) string {
		if i < len(s) {
			return s[i]
		}
		return "(none)"
	}
	fmt.Fprintf(w, "  first difference at #%d:\n    A: %s\n    B: %s\n", i+1, termtext.Line(item(a)), termtext.Line(item(b)))
}

// countKeys counts messages by type and exchanges by name.
func countKeys(kind string, items []string) map[string]int {
	c := map[string]int{}
	for _, s := range items {
		if kind == "messages" {
			s = s[strings.LastIndexByte(s, ' ')+1:]
		}
		c[s]++
	}
	return c
}
