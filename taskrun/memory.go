package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/memory"
)

// memoryCalibrator turns memory's calibration of an intent into the planner's three
// sets. A constraint on a tool and target (space tool:<name>, entity path:<target>)
// becomes "<name>:<target>", which the plan validator and the executor enforce; other
// entries are text for the prompt.
type memoryCalibrator struct{ r memory.Reader }

var _ roles.Calibrator = memoryCalibrator{}

func (m memoryCalibrator) Calibrate(ctx context.Context, intent string) (roles.Calibration, error) {
	cal, err := memory.Calibrate(ctx, m.r, intent)
	if err != nil {
		return roles.Calibration{}, err
	}
	word := func(es []memory.CalibrationEntry, verdict string) []string {
		out := []string{}
		for _, e := range es {
			switch {
			case strings.HasPrefix(e.Space, memory.SpaceToolPrefix) && strings.HasPrefix(e.Entity, memory.EntityPathPrefix):
				out = append(out, strings.TrimPrefix(e.Space, memory.SpaceToolPrefix)+":"+strings.TrimPrefix(e.Entity, memory.EntityPathPrefix))
			case e.Source == memory.SourceSOP && e.Content != "":
				out = append(out, e.Content)
			default:
				out = append(out, fmt.Sprintf("tasks like this one (%s) have been judged %s by memory (attention %.2f, decision %+.2f)",
					e.Space, verdict, e.Attention, e.Decision))
			}
		}
		return out
	}
	return roles.Calibration{Avoid: word(cal.MustNot, contract.ActionAvoid), Exploit: word(cal.ShouldPrefer, contract.ActionExploit),
		Caution: word(cal.Caution, contract.ActionCaution)}, nil
}

// journalFile is a journal file created on its first write, so a pass that distils nothing
// leaves no file behind. It never overwrites an existing file.
type journalFile struct {
	path string
	f    *os.File
}

func (l *journalFile) Write(p []byte) (int, error) {
	if l.f == nil {
		if l.path == "" {
			return 0, errors.New("no journal path")
		}
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.Write(p)
}

func (l *journalFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// DreamOutcome is the Dreamer's pass after a task: what it did, the distiller's journal
// (empty when it distilled nothing) and its error.
type DreamOutcome struct {
	Report  memory.DreamReport
	Journal string
	Err     error
}

// dreamAfterTask runs the Dreamer's pass once the task has its FinalResult: the seed's
// trigger, off the hot path, since the run is over.
func dreamAfterTask(ctx context.Context, mem *memory.Service, journal *journalFile) *DreamOutcome {
	rep, err := mem.DreamOnce(ctx)
	if cerr := journal.Close(); err == nil {
		err = cerr
	}
	out := &DreamOutcome{Report: rep, Err: err}
	if journal.f != nil {
		out.Journal = journal.path
	}
	return out
}
