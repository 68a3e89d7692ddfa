package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
)

// The user judges; GGS alone writes outcomes. A verdict is appended through memory's
// user handle (Service.UserFeedback) as a negative_feedback record with origin
// user:feedback, on the tag pair of each terminal Megram GGS wrote for the task: the
// trace's own Megrams when the run had memory, otherwise the newest outcome GGS stored
// for the task's intent with the task's directive.

// FinishedTask is what a trace says about one finished task.
type FinishedTask struct {
	Trace     string // the trace it was read from
	ID        string
	Intent    string
	Final     contract.FinalResult
	FinalLine int
	Megrams   []TracedMegram // terminal Megrams GGS posted for the task
}

// TracedMegram is a Megram as a trace holds it, with its line.
type TracedMegram struct {
	Line   int
	Megram contract.Megram
}

// ReadFinishedTask verifies the trace's hash chain and reads the finished task from it:
// task want, or the only one the trace finishes.
func ReadFinishedTask(path, want string) (*FinishedTask, error) {
	f, err := trace.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	rep, err := trace.VerifyChain(f)
	f.Close()
	var broken *trace.ChainError
	switch {
	case errors.As(err, &broken):
		return nil, fmt.Errorf("%s: hash chain broken at %v; feedback is recorded only on an intact trace", path, broken)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", path, err)
	case !rep.Chained:
		return nil, fmt.Errorf("%s: %s: its lines carry no hashes to verify; feedback is recorded only on a chained trace", path, rep)
	}
	tf, err := trace.ReadFileEvents(path)
	if err != nil {
		return nil, err
	}
	return FindFinishedTask(path, tf, want)
}

// FindFinishedTask picks the task whose FinalResult the trace records (want, or the only
// one) with its intent and the terminal Megrams GGS posted for it.
func FindFinishedTask(path string, tf *trace.File, want string) (*FinishedTask, error) {
	tasks := map[string]*FinishedTask{}
	get := func(id string) *FinishedTask {
		if tasks[id] == nil {
			tasks[id] = &FinishedTask{Trace: path, ID: id}
		}
		return tasks[id]
	}
	var headerIntent string
	type taskMegram struct {
		task string
		TracedMegram
	}
	var megrams []taskMegram
	for i := range tf.Events {
		l := &tf.Events[i]
		var m trace.Message
		switch b := l.Body.(type) {
		case trace.Header:
			headerIntent = b.Meta["intent"]
			continue
		case trace.Message:
			m = b
		default:
			continue
		}
		var err error
		switch {
		case m.Type == contract.TypeFinalResult && m.From == "R7":
			t := get(m.TaskID)
			err = json.Unmarshal(m.Payload, &t.Final)
			t.FinalLine = l.Line
		case m.Type == contract.TypeTaskSpec:
			var ts contract.TaskSpec
			if err = json.Unmarshal(m.Payload, &ts); err == nil && ts.Intent != "" {
				get(m.TaskID).Intent = ts.Intent
			}
		case m.Type == contract.TypeOutcomeSummary || m.Type == contract.TypeReplanRequest:
			var r struct {
				Intent string `json:"intent"`
			}
			if err = json.Unmarshal(m.Payload, &r); err == nil && r.Intent != "" && get(m.TaskID).Intent == "" {
				get(m.TaskID).Intent = r.Intent
			}
		case m.Type == contract.TypeMegram && m.From == "R7":
			var mg contract.Megram
			if err = json.Unmarshal(m.Payload, &mg); err == nil {
				megrams = append(megrams, taskMegram{m.TaskID, TracedMegram{l.Line, mg}})
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s payload: %v", path, l.Line, m.Type, err)
		}
	}
	var finished []string
	for id, t := range tasks {
		if t.FinalLine > 0 {
			finished = append(finished, id)
		}
	}
	sort.Strings(finished)
	var t *FinishedTask
	switch {
	case want != "":
		if t = tasks[want]; t == nil || t.FinalLine == 0 {
			ids := strings.Join(finished, ", ")
			if ids == "" {
				ids = "none"
			}
			return nil, fmt.Errorf("%s: no FinalResult of task %q; the trace finishes %s", path, want, ids)
		}
	case len(finished) == 0:
		return nil, fmt.Errorf("%s: no FinalResult: the task did not finish, so there is no outcome to judge", path)
	case len(finished) > 1:
		return nil, fmt.Errorf("%s: FinalResults of %d tasks (%s); name one with --task", path, len(finished), strings.Join(finished, ", "))
	default:
		t = tasks[finished[0]]
	}
	if t.Intent == "" {
		t.Intent = headerIntent
	}
	for _, m := range megrams {
		if m.task == t.ID && m.Megram.State == t.Final.Directive && m.Megram.Entity == memory.EntityLocal &&
			(strings.HasPrefix(m.Megram.Space, memory.SpaceIntentPrefix) || strings.HasPrefix(m.Megram.Space, memory.SpaceIntentFullPrefix)) {
			t.Megrams = append(t.Megrams, m.TracedMegram)
		}
	}
	return t, nil
}

// Feedback is what RecordFeedback wrote: each record beside the outcome it is against,
// and the live potentials of each outcome's pair afterwards.
type Feedback struct {
	Records    []memory.Record
	Against    []memory.Record
	Potentials []contract.Potentials
}

// RecordFeedback finds the outcomes GGS stored for the task in the store in dir and
// appends the user's verdict why against each. A task that already has the user's
// feedback is refused: a verdict is recorded once.
func RecordFeedback(ctx context.Context, dir string, clock clock.Clock, t *FinishedTask, why string) (*Feedback, error) {
	var mu sync.Mutex
	var durable []string
	var errs []error
	s, err := memory.OpenLevelDB(dir, memory.Options{
		Clock:   clock,
		Storage: memory.StorageOptions{MustExist: true},
		OnDurable: func(ids []string) {
			mu.Lock()
			durable = append(durable, ids...)
			mu.Unlock()
		},
		OnError: func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		},
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no memory store in %s", dir)
	}
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rules, err := outcomeRules(ctx, s, dir, t)
	if err != nil {
		return nil, err
	}
	if err := feedbackOnce(ctx, s, t, rules); err != nil {
		return nil, err
	}
	content := feedbackPrefix(t) + why
	user := s.UserFeedback()
	for _, r := range rules {
		user.RecordNegativeFeedback(ctx, r.ID, content)
	}
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	mu.Lock()
	ids, failed := append([]string(nil), durable...), errors.Join(errs...)
	mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	if len(ids) != len(rules) {
		return nil, fmt.Errorf("%d of %d feedback records were stored", len(ids), len(rules))
	}
	fb := &Feedback{Against: rules}
	for _, id := range ids {
		r, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		fb.Records = append(fb.Records, r)
	}
	for _, r := range rules {
		p, err := s.QueryMK(ctx, r.Space, r.Entity)
		if err != nil {
			return nil, err
		}
		fb.Potentials = append(fb.Potentials, p)
	}
	return fb, nil
}

// outcomeRules are the stored records the feedback is recorded against: the terminal
// Megrams of the trace, each of which must be in the store; or, when the run posted none,
// the newest outcome GGS stored for the intent with the task's directive, on the full tag
// pair and on the seed's.
func outcomeRules(ctx context.Context, s *memory.Service, dir string, t *FinishedTask) ([]memory.Record, error) {
	var rules []memory.Record
	for _, tm := range t.Megrams {
		r, err := s.Get(ctx, tm.Megram.ID)
		if errors.Is(err, memory.ErrNotFound) {
			return nil, fmt.Errorf("%s:%d: Megram %s of task %s is not in %s: give the store the task ran with", t.Trace, tm.Line, tm.Megram.ID, t.ID, dir)
		}
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	if len(rules) > 0 {
		return rules, nil
	}
	if t.Intent == "" {
		return nil, fmt.Errorf("%s: task %s posted no Megram and the trace names no intent: nothing in memory can be tied to it", t.Trace, t.ID)
	}
	spaces := []string{memory.IntentFullSpace(t.Intent), memory.IntentSpace(t.Intent)}
	for _, space := range spaces {
		var newest *memory.Record
		err := s.List(ctx, memory.ListFilter{Space: space, Entity: memory.EntityLocal}, func(r memory.Record) error {
			if r.Origin != memory.OriginGGS || r.State != t.Final.Directive {
				return nil
			}
			if newest == nil || r.CreatedAt.After(newest.CreatedAt) || r.CreatedAt.Equal(newest.CreatedAt) && r.ID > newest.ID {
				newest = &r
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if newest != nil {
			rules = append(rules, *newest)
		}
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("%s: task %s (%s) has no outcome in %s: GGS stored no %s Megram on (%s, %s) or (%s, %s)",
			t.Trace, t.ID, t.Final.Directive, dir, t.Final.Directive, spaces[0], memory.EntityLocal, spaces[1], memory.EntityLocal)
	}
	return rules, nil
}

// feedbackPrefix starts the content of every feedback record on a task; it is how a
// second verdict on the same task is recognised.
func feedbackPrefix(t *FinishedTask) string {
	return fmt.Sprintf("user feedback on task %s (%s): ", t.ID, t.Final.Directive)
}

// feedbackOnce refuses a task that already has the user's feedback on one of the pairs:
// a second run of the command would count the same verdict twice.
func feedbackOnce(ctx context.Context, s *memory.Service, t *FinishedTask, rules []memory.Record) error {
	prefix := feedbackPrefix(t)
	for _, r := range rules {
		var found string
		err := s.List(ctx, memory.ListFilter{Space: r.Space, Entity: r.Entity}, func(x memory.Record) error {
			if found == "" && x.Origin == memory.OriginUserFeedback && strings.HasPrefix(x.Content, prefix) {
				found = x.ID
			}
			return nil
		})
		if err != nil {
			return err
		}
		if found != "" {
			return fmt.Errorf("task %s already has the user's feedback on (%s, %s): record %s; a verdict is recorded once",
				t.ID, r.Space, r.Entity, found)
		}
	}
	return nil
}
