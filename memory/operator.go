package memory

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/agentspine/spine/clock"
)

// The operator's verbs (spine memory ls|show|potentials|dream|gc|export|import|verify|
// repair) open a store by its directory for one call and close it after. What they share
// is here: how the store is opened, what an absent one is, and the Dreamer's pass with
// every decision it made.

// DirOptions are how an operator's verb opens the store in a directory.
type DirOptions struct {
	Clock       clock.Clock
	ForgetGrace time.Duration // spare a pair whose newest M/K entry is younger; 0: the seed's rule
	Distiller   Distiller     // words consolidations; nil defers them
	Create      bool          // make the store when there is none; else its absence is NoStoreError
}

// NoStoreError is a directory that holds no store, for a verb that does not create one.
type NoStoreError struct{ Dir string }

func (e *NoStoreError) Error() string { return "no memory store in " + e.Dir }
func (e *NoStoreError) Unwrap() error { return fs.ErrNotExist }

// noStore words a store that is not there as NoStoreError.
func noStore(dir string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &NoStoreError{Dir: dir}
	}
	return err
}

// OpenDir opens the LevelDB store in dir for one verb; onDream, when set, receives every
// Dreamer decision.
func OpenDir(dir string, o DirOptions, onDream func(DreamEvent)) (*Service, error) {
	var dream DreamConfig // zero: the defaults
	if o.ForgetGrace != 0 {
		dream = DefaultDreamConfig()
		dream.ForgetGrace = o.ForgetGrace
	}
	s, err := OpenLevelDB(dir, Options{
		Clock:        o.Clock,
		Dream:        dream,
		Distiller:    o.Distiller,
		Storage:      StorageOptions{MustExist: !o.Create},
		OnDreamEvent: onDream,
	})
	if !o.Create {
		err = noStore(dir, err)
	}
	return s, err
}

// DreamResult is one Dreamer pass an operator asked for: its report and every decision,
// applied or not (a dry run's too), in the order made.
type DreamResult struct {
	Report DreamReport  `json:"report"`
	Events []DreamEvent `json:"events"`
}

// DreamDir runs one Dreamer pass over the store in dir, then compacts the store when
// compact is set.
func DreamDir(ctx context.Context, dir string, o DirOptions, do DreamOptions, compact bool) (DreamResult, error) {
	res := DreamResult{Events: []DreamEvent{}}
	s, err := OpenDir(dir, o, func(ev DreamEvent) { res.Events = append(res.Events, ev) })
	if err != nil {
		return res, err
	}
	defer s.Close()
	if res.Report, err = s.Dream(ctx, do); err == nil && compact {
		err = s.Compact(ctx)
	}
	return res, err
}

// VerifyDir is VerifyLevelDB for an operator: an absent store is NoStoreError, and the
// report's Problems is never nil.
func VerifyDir(ctx context.Context, dir string) (VerifyReport, error) {
	rep, err := VerifyLevelDB(ctx, dir)
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	return rep, noStore(dir, err)
}

// RepairDir is RepairLevelDB for an operator, backing the store up under a name made
// from at: an absent store is NoStoreError, and the report's Problems is never nil.
func RepairDir(ctx context.Context, dir string, at time.Time) (RepairReport, error) {
	rep, err := RepairLevelDB(ctx, dir, BackupName(dir, at.UTC().Format("20060102T150405Z")))
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	return rep, noStore(dir, err)
}
