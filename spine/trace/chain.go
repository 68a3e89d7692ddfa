package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentspine/spine/internal/linecap"
)

// The hash chain of a spine-trace/2 file.
//
// Every line ends in the field "h", the line's link in the chain:
//
//	h = hex(SHA-256(prev ‖ content))[:32]
//
// content is the line without its h field and without its newline — the event exactly as
// Event.AppendJSON encodes it — and prev is the h of the line before, or ChainGenesis for
// the first line. A line that is edited, removed, moved or inserted therefore no longer
// chains to the line before it, and VerifyChain names the first such line.
//
// h is the first 16 bytes of the digest: forging a line that matches a given h still
// takes about 2^128 hashes, and each line stays 32 characters shorter than with the whole
// digest. The chain has no key: whoever can rewrite the whole file can also compute every
// h again from the edit on. That rewrite shows only against a copy of the last h kept
// elsewhere (ChainReport.Head, FileSink.Head), which is why the trace also lives outside
// the agent's reach and is locked while a run writes it, or against a signature over the
// head by a key the attacker does not hold (sign.go).

// ChainGenesis is the "previous h" of a trace's first line. It is fixed and public: the
// chain proves the lines' order and content, not who wrote them.
const ChainGenesis = "00000000000000000000000000000000"

const chainHexLen = len(ChainGenesis)

// chainSuffixLen is the length of `,"h":"<32 hex>"}`, what a chained line adds to the
// closing brace of its content.
const chainSuffixLen = len(`,"h":"`) + chainHexLen + len(`"}`)

// chainEncoder turns events into chained lines. Every sink that writes trace lines
// (FileSink, MemorySink) encodes through one, so no line reaches a trace without its
// link.
type chainEncoder struct {
	prev    [chainHexLen]byte
	started bool
	buf     []byte
	// Lines encoded, and the last one's seq and time: a signature line follows them
	// (sign.go).
	lines    int
	lastSeq  int64
	lastTime time.Time
}

// encode returns the event's chained line, newline included. The slice is valid until
// the next call.
func (c *chainEncoder) encode(e *Event) ([]byte, error) {
	if !c.started {
		copy(c.prev[:], ChainGenesis)
	}
	// prev ‖ content ‖ "\n" in one buffer, so the digest needs no copy and no allocation.
	buf := append(c.buf[:0], c.prev[:]...)
	buf, err := e.AppendJSON(buf)
	c.buf = buf
	if err != nil {
		return nil, err
	}
	if err := checkLineSize(e, len(buf)-chainHexLen-len("}\n")+chainSuffixLen); err != nil {
		return nil, err
	}
	c.started, c.lastSeq, c.lastTime = true, e.Seq, e.Time
	c.lines++
	buf = sealContent(buf[:len(buf)-1], &c.prev)
	c.buf = buf
	return buf[chainHexLen:], nil
}

// Head is the h of the last line encoded, or "" before the first.
func (c *chainEncoder) head() string {
	if !c.started {
		return ""
	}
	return string(c.prev[:])
}

// sealContent takes prev ‖ content (content ending in '}'), hashes it, puts the digest's
// hex in *prev and returns prev ‖ content-with-h ‖ "\n" in the same buffer.
func sealContent(buf []byte, prev *[chainHexLen]byte) []byte {
	sum := sha256.Sum256(buf)
	hex.Encode(prev[:], sum[:chainHexLen/2])
	buf = append(buf[:len(buf)-1], `,"h":"`...)
	buf = append(buf, prev[:]...)
	return append(buf, '"', '}', '\n')
}

// SealTrace gives every line of a trace written without hashes its h, in order from the
// genesis value: what a chained sink would have written for the same events. It is for
// traces made by hand (tests) and for moving a spine-trace/1 file to the chained layout
// after its header's format was changed; each line must be a JSON object without an h.
func SealTrace(unchained []byte) ([]byte, error) {
	var prev [chainHexLen]byte
	copy(prev[:], ChainGenesis)
	out := make([]byte, 0, len(unchained)+len(unchained)/4)
	var buf []byte
	for n, line := range bytes.SplitAfter(unchained, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(line, &keys); err != nil {
			return nil, fmt.Errorf("line %d: not a JSON object: %w", n+1, err)
		}
		if _, ok := keys["h"]; ok {
			return nil, fmt.Errorf("line %d: already has an h", n+1)
		}
		if line[len(line)-1] != '}' {
			return nil, fmt.Errorf("line %d: does not end in '}'", n+1)
		}
		buf = append(append(buf[:0], prev[:]...), line...)
		buf = sealContent(buf, &prev)
		out = append(out, buf[chainHexLen:]...)
	}
	return out, nil
}

// UnchainedTrace is a chained trace as the spine-trace/1 writer would have written it:
// every line without its h, and the header's format named spine-trace/1. A replay of an
// unchained recording is compared with the recording through it.
func UnchainedTrace(trace []byte) []byte {
	out := make([]byte, 0, len(trace))
	for n, line := range bytes.SplitAfter(trace, []byte("\n")) {
		body, nl := bytes.CutSuffix(line, []byte("\n"))
		if content, _, ok := splitChained(body); ok {
			body = content
		}
		if n == 0 {
			body = bytes.Replace(body, []byte(`"format":"`+Format+`"`), []byte(`"format":"`+FormatUnchained+`"`), 1)
		}
		out = append(out, body...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// splitChained splits a line that ends in a well-formed h into its content (the line
// without the field, what the chain hashes) and h. ok is false for a line whose last
// field is not such an h.
func splitChained(line []byte) (content []byte, h string, ok bool) {
	if len(line) < chainSuffixLen+1 {
		return nil, "", false
	}
	tail := line[len(line)-chainSuffixLen:]
	if !bytes.HasPrefix(tail, []byte(`,"h":"`)) || !bytes.HasSuffix(tail, []byte(`"}`)) {
		return nil, "", false
	}
	hx := tail[len(`,"h":"`) : len(tail)-2]
	if !isChainHex(hx) {
		return nil, "", false
	}
	content = make([]byte, 0, len(line)-chainSuffixLen+1)
	content = append(content, line[:len(line)-chainSuffixLen]...)
	return append(content, '}'), string(hx), true
}

// isChainHex reports whether h is an h: chainHexLen lowercase hex digits.
func isChainHex(h []byte) bool {
	return len(h) == chainHexLen && len(bytes.Trim(h, "0123456789abcdef")) == 0
}

// ChainReport is what VerifyChain found.
type ChainReport struct {
	Format  string    // the header's format
	Chained bool      // the format has a hash chain (spine-trace/2)
	Lines   int       // complete lines read (and, when chained, verified)
	Head    string    // h of the last verified line: keep it elsewhere to detect a rewrite of the whole file
	Torn    *TornLine // an incomplete last line, tolerated as in Read
}

// String is a one-line summary: "hash chain intact (12 lines)" or "unchained (format
// spine-trace/1)".
func (r ChainReport) String() string {
	if !r.Chained {
		if r.Format == "" {
			return "unchained (no header)"
		}
		return fmt.Sprintf("unchained (format %s)", r.Format)
	}
	return fmt.Sprintf("hash chain intact (%d lines)", r.Lines)
}

// ChainError names the first line where a trace's chain breaks, and why.
type ChainError struct {
	Line   int   // 1-based
	Seq    int64 // the line's seq, 0 when it has none
	Reason string
}

func (e *ChainError) Error() string {
	if e.Seq > 0 {
		return fmt.Sprintf("line %d (seq %d): %s", e.Line, e.Seq, e.Reason)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
}

// VerifyChain reads a trace and checks its hash chain line by line. It returns a
// *ChainError for the first line that breaks it: a line that is not a trace event, has
// no h or a malformed one, or whose h is not the hash of its content after the line
// before it — with the likely cause (an edit, a removed or reordered line) read from the
// seqs. A torn last line is reported in ChainReport.Torn, not as a break. A trace of the
// unchained format (spine-trace/1) is read without checks and reported as unchained; any
// other format is an error. Other errors are the reader's.
//
// The chain cannot show lines cut from the end at a line boundary, nor a file rewritten
// with every h computed again: compare Head with a copy kept elsewhere for those.
func VerifyChain(r io.Reader) (ChainReport, error) {
	var rep ChainReport
	lr := linecap.New("", r)
	var prev [chainHexLen]byte
	copy(prev[:], ChainGenesis)
	var prevSeq int64
	var buf []byte
	for n := 1; ; n++ {
		line, complete, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rep, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if !complete {
				break
			}
			return rep, &ChainError{Line: n, Reason: "empty line"}
		}
		var ev struct {
			Seq    *int64          `json:"seq"`
			Kind   string          `json:"kind"`
			Format string          `json:"format"`
			H      json.RawMessage `json:"h"`
		}
		derr := json.Unmarshal(line, &ev)
		if !complete && (derr != nil || ev.Kind == "") {
			rep.Torn = &TornLine{Line: n, Bytes: len(line)}
			break
		}
		if derr != nil {
			return rep, &ChainError{Line: n, Reason: "not a JSON object: " + derr.Error()}
		}
		if ev.Seq == nil || ev.Kind == "" {
			return rep, &ChainError{Line: n, Reason: "not a trace event (want a JSON object with seq, t and kind)"}
		}
		seq := *ev.Seq
		if n == 1 {
			if ev.Kind != KindHeader {
				return rep, &ChainError{Line: 1, Seq: seq, Reason: fmt.Sprintf("the first line is a %s event, not the header", linecap.ExcerptString(ev.Kind))}
			}
			rep.Format = ev.Format
			switch ev.Format {
			case Format:
				rep.Chained = true
			case FormatUnchained:
				if ev.H != nil {
					// An unchained header with a link: someone relabelled a chained
					// trace to skip the checks.
					return rep, &ChainError{Line: 1, Seq: seq, Reason: fmt.Sprintf("the header says %s, which has no hashes, but the line has an h: its format was changed", FormatUnchained)}
				}
			case "":
				return rep, &ChainError{Line: 1, Seq: seq, Reason: "the header has no format"}
			default:
				return rep, &ChainError{Line: 1, Seq: seq, Reason: fmt.Sprintf("trace format %s: this build reads %s (chained) and %s (unchained)", linecap.ExcerptString(ev.Format), Format, FormatUnchained)}
			}
		}
		if !rep.Chained {
			rep.Lines = n
			continue
		}
		if cerr := checkLink(line, ev.H, &prev, &buf); cerr != "" {
			if cerr == errNoLink {
				cerr = linkCause(n, seq, prevSeq)
			}
			return rep, &ChainError{Line: n, Seq: seq, Reason: cerr}
		}
		prevSeq = seq
		rep.Lines = n
		rep.Head = string(prev[:])
	}
	if rep.Lines == 0 && rep.Torn == nil {
		return rep, &ChainError{Line: 1, Reason: "the trace is empty"}
	}
	return rep, nil
}

// errNoLink marks a well-formed h that is not the hash of its line after the previous.
const errNoLink = "\x00"

// checkLink checks one chained line's h and, when it holds, makes it *prev. It returns
// "" when the line chains, errNoLink when its h is not the expected hash, or what is
// wrong with the field.
func checkLink(line []byte, rawH json.RawMessage, prev *[chainHexLen]byte, buf *[]byte) string {
	if rawH == nil {
		return "missing h"
	}
	var h string
	if json.Unmarshal(rawH, &h) != nil {
		return fmt.Sprintf("h is %.40s, not a string", rawH)
	}
	if !isChainHex([]byte(h)) {
		return fmt.Sprintf("h %s is not %d lowercase hex digits", linecap.ExcerptString(h), chainHexLen)
	}
	content, _, ok := splitChained(line)
	if !ok {
		return "h is not the line's last field"
	}
	b := append(append((*buf)[:0], prev[:]...), content...)
	*buf = b
	var want [chainHexLen]byte
	sum := sha256.Sum256(b)
	hex.Encode(want[:], sum[:chainHexLen/2])
	if string(want[:]) != h {
		return errNoLink
	}
	*prev = want
	return ""
}

// linkCause says why line n does not chain to the line before it, from the seqs: a
// writer numbers its lines 1, 2, 3…, so a gap or a step back shows a removed or moved
// line, and an unbroken run shows an edit.
func linkCause(n int, seq, prevSeq int64) string {
	switch {
	case n == 1:
		return "hash does not chain from the genesis value (the header was edited)"
	case seq > prevSeq+1:
		return fmt.Sprintf("seq %d follows seq %d of line %d: a line was removed or the lines reordered", seq, prevSeq, n-1)
	case seq <= prevSeq:
		return fmt.Sprintf("seq %d does not follow seq %d of line %d: the lines were reordered or one repeated", seq, prevSeq, n-1)
	}
	return fmt.Sprintf("hash does not chain to line %d (line %d was edited, or the h of line %d was rewritten)", n-1, n, n-1)
}
