package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// ResumePartial continues a run from the partial trace an earlier attempt of the same
// task left (a fleet worker's resume: fleet.ResumeFunc). cfg is what the attempt would
// give RunTask: its WrapSink goes on the new trace's sink, so the continued lines are
// copied as they are written; the new trace is cfg.TracePath; the resumed line's host is
// cfg.Meta["fleet_worker"], and the attempts the run supersedes (cfg.Meta's
// fleet_supersedes) are said in it beside why the recording stopped. The work dir is the
// caller's to prepare: the recorded tool calls are served, not made again, so the files
// they changed must be there already (the fleet carries the earlier attempt's). A partial trace
// whose run already ended is not run again: its lines become the new trace as they are,
// and its FinalResult is the result, with no call made.
func ResumePartial(ctx context.Context, partial string, cfg Config) (Result, error) {
	o, err := OpenResume(partial)
	if err != nil {
		return Result{}, err
	}
	if o.Ended != "" {
		return endedPartial(o, cfg.TracePath)
	}
	if s := cfg.Meta["fleet_supersedes"]; s != "" {
		o.Stopped += "; superseded: " + s
	}
	res, _, err := Resume(ctx, o, cfg, cfg.Meta["fleet_worker"])
	return res, err
}

// endedPartial is the result of a recording that already ended: its lines written at
// path as they are (the chain and any signature with them) and its FinalResult read.
func endedPartial(o *Opened, path string) (Result, error) {
	c := o.Continuation
	res := Result{RunID: o.Recording.Header.Run}
	for i := range c.File.Events {
		m, ok := trace.As[trace.Message](&c.File.Events[i])
		if !ok {
			continue
		}
		switch {
		case m.Type == contract.TypeFinalResult && m.From == "R7":
			var f contract.FinalResult
			if err := json.Unmarshal(m.Payload, &f); err != nil {
				return Result{}, fmt.Errorf("%s:%d: the FinalResult: %w", c.Name, i+1, err)
			}
			res.Final = &f
		case m.Type == contract.TypeTaskSpec && m.From == "R1":
			_ = json.Unmarshal(m.Payload, &res.Task) // the task's spec, when it reads
		}
	}
	if path == "" {
		path = FreshPath(c.Name)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Result{}, fmt.Errorf("%w; a trace is never overwritten", err)
	}
	_, err = f.Write(bytes.Join(c.Lines, nil))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Result{}, err
	}
	res.TracePath, res.TraceHead, res.TraceLines = path, c.Head, len(c.Lines)
	return res, nil
}
