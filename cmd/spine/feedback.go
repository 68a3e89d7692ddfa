package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "feedback [flags] TRACE",
			Short: "record the user's verdict on a finished task: a negative feedback in memory against the outcome GGS wrote",
		}
		fset := c.Flags()
		bad := fset.String("bad", "", "`WHY` the task's result is wrong (required): the content of the feedback record")
		dir := fset.String("memory", "", "memory store `DIR` the task ran with (required)")
		db := fset.String("db", "", "the same as --memory, as spine memory spells it")
		task := fset.String("task", "", "the task `ID` to judge, when the trace holds several")
		now := fset.String("now", "", "record at this `TIME` (RFC 3339) instead of the host clock")
		opts := &feedbackFlags{
			bad:  bad,
			dir:  dir,
			db:   db,
			task: task,
			now:  now,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runFeedback(c.Context(), io, fset, opts))
		}
		return c
	})
}

// feedbackFlags are spine feedback's flags.
type feedbackFlags struct {
	bad  *string
	dir  *string
	db   *string
	task *string
	now  *string
}

// The user judges; GGS alone writes outcomes. A verdict is appended through memory's
// user handle (Service.UserFeedback) as a negative_feedback record with origin
// user:feedback, on the tag pair of each terminal Megram GGS wrote for the task: the
// trace's own Megrams when the run had memory, otherwise the newest outcome GGS stored
// for the task's intent with the task's directive.

// feedbackTask is what a trace says about one finished task.
type feedbackTask struct {
	id, intent string
	final      contract.FinalResult
	finalLine  int
	megrams    []tracedMegram // terminal Megrams GGS posted for the task
}

type tracedMegram struct {
	line int
	m    contract.Megram
}

func runFeedback(ctx context.Context, io stdio, fset *pflag.FlagSet, opts *feedbackFlags) int {
	bad, dir, db, task, now := opts.bad, opts.dir, opts.db, opts.task, opts.now
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(io.err, "spine feedback: %s\nRun 'spine feedback --help' for its flags.\n", fmt.Sprintf(format, a...))
		return exitUsage
	}
	switch {
	case fset.NArg() != 1:
		return usageErr("expected one trace file, got %d arguments", fset.NArg())
	case strings.TrimSpace(*bad) == "":
		return usageErr("--bad WHY is required: say what is wrong with the task's result")
	case *dir != "" && *db != "" && *dir != *db:
		return usageErr("--memory %s and --db %s name different stores", *dir, *db)
	case *dir == "" && *db == "":
		return usageErr("--memory DIR is required: the store the task ran with")
	}
	if *dir == "" {
		*dir = *db
	}
	clock := memClock{}
	if *now != "" {
		t, err := time.Parse(time.RFC3339Nano, *now)
		if err != nil {
			return usageErr("--now %q: want an RFC 3339 time such as 2025-03-01T12:00:00Z", *now)
		}
		clock.fixed = t
	}
	path := fset.Arg(0)
	ft, err := readFeedbackTask(path, *task)
	if err != nil {
		fmt.Fprintf(io.err, "spine feedback: %v\n", err)
		return exitFail
	}
	if err := recordFeedback(ctx, io, path, *dir, clock, ft, strings.TrimSpace(*bad)); err != nil {
		fmt.Fprintf(io.err, "spine feedback: %v\n", err)
		return exitFail
	}
	return exitOK
}

// readFeedbackTask verifies the trace's hash chain and reads the finished task from it.
func readFeedbackTask(path, want string) (*feedbackTask, error) {
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
	return findFinishedTask(path, tf, want)
}

// findFinishedTask picks the task whose FinalResult the trace records (want, or the only
// one) with its intent and the terminal Megrams GGS posted for it.
func findFinishedTask(path string, tf *trace.File, want string) (*feedbackTask, error) {
	tasks := map[string]*feedbackTask{}
	get := func(id string) *feedbackTask {
		if tasks[id] == nil {
			tasks[id] = &feedbackTask{id: id}
		}
		return tasks[id]
	}
	var headerIntent string
	var megrams []struct {
		task string
		tracedMegram
	}
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
			err = json.Unmarshal(m.Payload, &t.final)
			t.finalLine = l.Line
		case m.Type == contract.TypeTaskSpec:
			var ts contract.TaskSpec
			if err = json.Unmarshal(m.Payload, &ts); err == nil && ts.Intent != "" {
				get(m.TaskID).intent = ts.Intent
			}
		case m.Type == contract.TypeOutcomeSummary || m.Type == contract.TypeReplanRequest:
			var r struct {
				Intent string `json:"intent"`
			}
			if err = json.Unmarshal(m.Payload, &r); err == nil && r.Intent != "" && get(m.TaskID).intent == "" {
				get(m.TaskID).intent = r.Intent
			}
		case m.Type == contract.TypeMegram && m.From == "R7":
			var mg contract.Megram
			if err = json.Unmarshal(m.Payload, &mg); err == nil {
				megrams = append(megrams, struct {
					task string
					tracedMegram
				}{m.TaskID, tracedMegram{l.Line, mg}})
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s payload: %v", path, l.Line, m.Type, err)
		}
	}
	var finished []string
	for id, t := range tasks {
		if t.finalLine > 0 {
			finished = append(finished, id)
		}
	}
	sort.Strings(finished)
	var t *feedbackTask
	switch {
	case want != "":
		if t = tasks[want]; t == nil || t.finalLine == 0 {
			return nil, fmt.Errorf("%s: no FinalResult of task %q; the trace finishes %s", path, want, orNone(finished))
		}
	case len(finished) == 0:
		return nil, fmt.Errorf("%s: no FinalResult: the task did not finish, so there is no outcome to judge", path)
	case len(finished) > 1:
		return nil, fmt.Errorf("%s: FinalResults of %d tasks (%s); name one with --task", path, len(finished), strings.Join(finished, ", "))
	default:
		t = tasks[finished[0]]
	}
	if t.intent == "" {
		t.intent = headerIntent
	}
	for _, m := range megrams {
		if m.task == t.id && m.m.State == t.final.Directive && m.m.Entity == memory.EntityLocal &&
			(strings.HasPrefix(m.m.Space, memory.SpaceIntentPrefix) || strings.HasPrefix(m.m.Space, memory.SpaceIntentFullPrefix)) {
			t.megrams = append(t.megrams, m.tracedMegram)
		}
	}
	return t, nil
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// recordFeedback finds the outcomes GGS stored for the task and appends the user's
// verdict against each, then prints the records and the pairs' live potentials.
func recordFeedback(ctx context.Context, io stdio, path, dir string, clock memClock, t *feedbackTask, why string) error {
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
		return fmt.Errorf("no memory store in %s", dir)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	rules, err := outcomeRules(ctx, s, path, dir, t)
	if err != nil {
		return err
	}
	if err := feedbackOnce(ctx, s, t, rules); err != nil {
		return err
	}
	content := feedbackPrefix(t) + why
	user := s.UserFeedback()
	for _, r := range rules {
		user.RecordNegativeFeedback(ctx, r.ID, content)
	}
	if err := s.Flush(ctx); err != nil {
		return err
	}
	mu.Lock()
	ids, failed := append([]string(nil), durable...), errors.Join(errs...)
	mu.Unlock()
	if failed != nil {
		return failed
	}
	if len(ids) != len(rules) {
		return fmt.Errorf("%d of %d feedback records were stored", len(ids), len(rules))
	}
	printLine(io.out, "task %s (%s, %s:%d): %q", t.id, t.final.Directive, path, t.finalLine, t.intent)
	printLine(io.out, "recorded %d negative feedback record(s) in %s:", len(ids), dir)
	for i, id := range ids {
		r, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		printLine(io.out, "  %s %s (%s, %s) f=%g σ=%g k=%g origin=%s against %s",
			r.ID, r.State, r.Space, r.Entity, r.F, r.Sigma, r.K, r.Origin, rules[i].ID)
	}
	for _, r := range rules {
		p, err := s.QueryMK(ctx, r.Space, r.Entity)
		if err != nil {
			return err
		}
		printLine(io.out, "  (%s, %s) now: attention %.3f, decision %+.3f → %s", r.Space, r.Entity, p.Attention, noNegZero(p.Decision), p.Action)
	}
	return nil
}

// outcomeRules are the stored records the feedback is recorded against: the terminal
// Megrams of the trace, each of which must be in the store; or, when the run posted none,
// the newest outcome GGS stored for the intent with the task's directive, on the full tag
// pair and on the seed's.
func outcomeRules(ctx context.Context, s *memory.Service, path, dir string, t *feedbackTask) ([]memory.Record, error) {
	var rules []memory.Record
	for _, tm := range t.megrams {
		r, err := s.Get(ctx, tm.m.ID)
		if errors.Is(err, memory.ErrNotFound) {
			return nil, fmt.Errorf("%s:%d: Megram %s of task %s is not in %s: give the store the task ran with", path, tm.line, tm.m.ID, t.id, dir)
		}
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	if len(rules) > 0 {
		return rules, nil
	}
	if t.intent == "" {
		return nil, fmt.Errorf("%s: task %s posted no Megram and the trace names no intent: nothing in memory can be tied to it", path, t.id)
	}
	spaces := []string{memory.IntentFullSpace(t.intent), memory.IntentSpace(t.intent)}
	for _, space := range spaces {
		var newest *memory.Record
		err := s.List(ctx, memory.ListFilter{Space: space, Entity: memory.EntityLocal}, func(r memory.Record) error {
			if r.Origin != memory.OriginGGS || r.State != t.final.Directive {
				return nil
			}
			if newest == nil || r.CreatedAt.After(newest.CreatedAt) || r.CreatedAt.Equal(newest.CreatedAt) && r.ID > newest.ID {
				r := r
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
			path, t.id, t.final.Directive, dir, t.final.Directive, spaces[0], memory.EntityLocal, spaces[1], memory.EntityLocal)
	}
	return rules, nil
}

// feedbackPrefix starts the content of every feedback record on a task; it is how a
// second verdict on the same task is recognised.
func feedbackPrefix(t *feedbackTask) string {
	return fmt.Sprintf("user feedback on task %s (%s): ", t.id, t.final.Directive)
}

// feedbackOnce refuses a task that already has the user's feedback on one of the pairs:
// a second run of the command would count the same verdict twice.
func feedbackOnce(ctx context.Context, s *memory.Service, t *feedbackTask, rules []memory.Record) error {
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
				t.id, r.Space, r.Entity, found)
		}
	}
	return nil
}

// noNegZero prints a decision that rounds to zero as +0.000, not -0.000.
func noNegZero(d float64) float64 {
	if d > -0.0005 && d < 0.0005 {
		return 0
	}
	return d
}
