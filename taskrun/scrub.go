package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
	"github.com/agentspine/spine/spine/trace"
)

// What a run hides, and where. Secrets are scrubbed where they enter the run's data: the
// model's replies and errors (llm.ScrubModel), and the tools' results (scrubTools), so
// what is journalled, shown and sent back to the model is already clean and a replay,
// which feeds recorded data, stays byte for byte. scrubSink scrubs the trace once more
// as it is written, in case something reached it another way.

// runScrubber hides the configuration's secrets (the ones in effect, and those of the
// file as written, which the environment may override but which are secrets still) and
// the values of the environment variables whose names look secret.
func runScrubber(cfg llm.Config, environ []string) *secrets.Scrubber {
	vals := append(cfg.SecretValues(), cfg.FileSecretValues()...)
	return secrets.New(append(vals, secrets.FromEnviron(environ)...)...)
}

// scrubTools hides secrets in what R3's tools return: output, target, evidence and the
// error. Any other method of the toolbox is passed through.
type scrubTools struct {
	sandbox.Toolbox
	sc *secrets.Scrubber
}

func (t scrubTools) Call(ctx context.Context, name string, argsJSON []byte) (contract.ToolResponse, error) {
	r, err := t.Toolbox.Call(ctx, name, argsJSON)
	out, tgt := t.sc.String(r.Output), t.sc.String(r.Target)
	if (out != r.Output || tgt != r.Target) && r.Evidence != "" {
		// The evidence keeps the output's tail, which may begin inside a secret; made
		// again from the scrubbed output, it shows the marker instead of a fragment.
		r.Evidence = contract.FormatToolCall(r.Tool, tgt, out)
	}
	r.Output, r.Target, r.Evidence = out, tgt, t.sc.String(r.Evidence)
	return r, t.sc.Error(err)
}

// Exists passes the work dir's lookup through, for the evidence check of R4a's verdicts.
func (t scrubTools) Exists(rel string) (bool, error) {
	if wd, ok := t.Toolbox.(roles.WorkDir); ok {
		return wd.Exists(rel)
	}
	return false, errors.New("the toolbox has no work dir to look in")
}

var _ roles.WorkDir = scrubTools{}

// scrubSink scrubs every string of a trace event before the next sink writes it. Events
// without a secret, nearly all of them, are passed on as they are.
type scrubSink struct {
	next trace.Sink
	sc   *secrets.Scrubber
	mu   sync.Mutex
	buf  []byte
}

func (s *scrubSink) Write(e *trace.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	line, err := e.AppendJSON(s.buf[:0])
	s.buf = line
	if err != nil || !s.sc.Contains(string(line)) {
		return s.next.Write(e)
	}
	clean, err := scrubJSON(s.sc, line)
	if err != nil {
		return fmt.Errorf("trace: scrubbing %s event %d: %w", e.Kind, e.Seq, err)
	}
	// The line is the head (seq, t, kind) and the body's fields; only the body is handed
	// on, as a JSON object, so the next sink lays the line out as it would have.
	head, err := (&trace.Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind}).AppendJSON(nil)
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(clean, bytes.TrimSuffix(head, []byte("}\n")))
	if !ok || len(rest) == 0 {
		return fmt.Errorf("trace: scrubbing %s event %d: the line's head changed", e.Kind, e.Seq)
	}
	var body any
	if rest[0] == ',' {
		body = json.RawMessage(append([]byte{'{'}, rest[1:]...))
	}
	return s.next.Write(&trace.Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: body})
}

func (s *scrubSink) Flush() error { return s.next.Flush() }

// scrubJSON writes a JSON text again with every string, keys included, scrubbed, and
// everything else as it was, in the compact form encoding/json writes (trace lines are
// in it). Working on decoded strings means no escape sequence can be cut in half.
func scrubJSON(sc *secrets.Scrubber, text []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	type level struct {
		object bool
		n      int // tokens so far: in an object, keys and values alternate
	}
	var stack []level
	var out []byte
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 || len(out) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(stack) == 0 && len(out) > 0 {
			return nil, errors.New("more than one JSON value")
		}
		if d, ok := tok.(json.Delim); len(stack) > 0 && (!ok || d == '{' || d == '[') {
			top := &stack[len(stack)-1]
			switch {
			case top.n > 0 && top.object && top.n%2 == 1:
				out = append(out, ':')
			case top.n > 0:
				out = append(out, ',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, byte(v))
			switch v {
			case '{', '[':
				stack = append(stack, level{object: v == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			b, err := json.Marshal(sc.String(v))
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		case json.Number:
			out = append(out, v...)
		case bool:
			out = strconv.AppendBool(out, v)
		case nil:
			out = append(out, "null"...)
		}
	}
}
