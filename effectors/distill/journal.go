package distill

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentspine/spine/internal/strictjson"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/replay"
)

// Entry is one journalled exchange: a JSON line.
type Entry struct {
	Call        int                    `json:"call"`
	RequestHash string                 `json:"request_hash"`
	Request     memory.DistilRequest   `json:"request"`
	Response    *memory.DistilResponse `json:"response,omitempty"`
	Error       string                 `json:"error,omitempty"`
}

// Recorder journals every exchange of the distiller it wraps, one JSON line per call,
// in call order.
type Recorder struct {
	Inner memory.Distiller
	mu    sync.Mutex
	w     io.Writer
	n     int
	err   error
}

var _ memory.Distiller = (*Recorder)(nil)

// NewRecorder journals inner's exchanges to w.
func NewRecorder(inner memory.Distiller, w io.Writer) *Recorder { return &Recorder{Inner: inner, w: w} }

// Distil calls the inner distiller and journals the exchange. A journal that cannot be
// written fails the call: an unrecorded consolidation could not be replayed.
func (r *Recorder) Distil(ctx context.Context, req memory.DistilRequest) (memory.DistilResponse, error) {
	resp, err := r.Inner.Distil(ctx, req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	e := Entry{Call: r.n, RequestHash: requestHash(req), Request: req}
	if err != nil {
		e.Error = err.Error()
	} else {
		e.Response = &resp
	}
	line, merr := json.Marshal(e)
	if merr == nil {
		_, merr = r.w.Write(append(line, '\n'))
	}
	if merr != nil {
		r.err = merr
		return memory.DistilResponse{}, fmt.Errorf("distill: journal: %w", merr)
	}
	return resp, err
}

func requestHash(req memory.DistilRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Replayer serves a journal: the n-th call must ask what the n-th recorded call asked,
// and gets the recorded answer or error. No model is called.
type Replayer struct {
	name    string
	mu      sync.Mutex
	entries []Entry
	next    int
}

var _ memory.Distiller = (*Replayer)(nil)

// ErrJournalEnded is returned for a call the journal does not hold.
var ErrJournalEnded = errors.New("the distiller journal holds no more calls")

// LoadJournal reads a journal file.
func LoadJournal(path string) (*Replayer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJournal(path, f)
}

// ReadJournal reads a journal; an error names the line and what was wrong.
func ReadJournal(name string, r io.Reader) (*Replayer, error) {
	rp := &Replayer{name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := strictjson.Decode(line, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: not a distiller journal entry: %v", name, n, err)
		}
		switch {
		case e.Call != len(rp.entries)+1:
			return nil, fmt.Errorf("%s:%d: call %d, expected call %d", name, n, e.Call, len(rp.entries)+1)
		case (e.Response == nil) == (e.Error == ""):
			return nil, fmt.Errorf("%s:%d: an entry holds exactly one of response and error", name, n)
		case e.RequestHash != requestHash(e.Request):
			return nil, fmt.Errorf("%s:%d: request_hash does not match the request", name, n)
		}
		rp.entries = append(rp.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rp, nil
}

// Distil serves the next recorded call after checking that it asks the same thing.
func (r *Replayer) Distil(ctx context.Context, req memory.DistilRequest) (memory.DistilResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next >= len(r.entries) {
		return memory.DistilResponse{}, fmt.Errorf("%w (%s has %d; call %d asked for %s, %s)", ErrJournalEnded, r.name, len(r.entries), r.next+1, req.Space, req.Entity)
	}
	e := r.entries[r.next]
	r.next++
	if h := requestHash(req); h != e.RequestHash {
		got, _ := json.Marshal(req)
		want, _ := json.Marshal(e.Request)
		where := ""
		if d := replay.CompareTraces(want, got, 0); d != nil {
			where = ": " + strings.TrimPrefix(d.String(), "line 1, ")
		}
		return memory.DistilResponse{}, fmt.Errorf("distill replay diverged at call %d of %s%s", e.Call, r.name, where)
	}
	if e.Error != "" {
		return memory.DistilResponse{}, errors.New(e.Error)
	}
	return *e.Response, nil
}

// Remaining is how many recorded calls were not asked for.
func (r *Replayer) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries) - r.next
}
