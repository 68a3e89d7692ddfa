package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
	"github.com/spf13/cobra"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "replay [flags] TRACE|DIR...",
			Short: "re-run recorded traces from their recordings, calling no model, and check them",
		}
		fs := c.Flags()
		rulesPath := fs.String("rules", "", "replay with this rule `FILE` instead of the recorded one (the run may diverge)")
		check := fs.Bool("check", false, "compare the new trace with the recording; exit 1 at the first differing line")
		out := fs.String("out", "", "write the new trace to this `FILE` (one trace only)")
		jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "`N` traces replayed at once")
		verifyKey := addVerifyKey(fs)
		whatIf := fs.Bool("what-if", false, "with --rules: re-decide every recorded cycle with the edited rules and show the changed decisions; calls no effector")
		c.RunE = func(c *cobra.Command, args []string) error {
			paths, err := traceArgs(args)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if *whatIf {
				return exitStatus(whatIfTraces(io, *rulesPath, paths, false))
			}
			if *out != "" && len(paths) != 1 {
				return usageErrorf("--out takes one trace")
			}
			o := replay.CheckOptions{Compare: *check}
			if o.Keys, err = loadVerifyKey(*verifyKey); err != nil {
				return usageErrorf("%v", err)
			}
			if *rulesPath != "" {
				if o.Rules, err = engine.LoadRulesFile(*rulesPath); err != nil {
					return err
				}
			}
			results := replayAll(c, paths, max(*jobs, 1), o)
			code := exitOK
			for _, r := range results {
				showReplay(io, r)
				if !r.OK() {
					code = exitFail
				}
			}
			if len(results) > 1 {
				fmt.Fprintln(io.out, replay.Summary(results, *check))
			}
			if *out != "" && results[0].Replayed != nil {
				if err := writeNewFile(*out, results[0].Replayed); err != nil {
					return err
				}
				fmt.Fprintf(io.out, "new trace written to %s\n", *out)
			}
			return exitStatus(code)
		}
		return c
	})
}

// replayAll replays the traces, jobs at a time, into outcomes in the order of paths.
func replayAll(c *cobra.Command, paths []string, jobs int, o replay.CheckOptions) []replay.Outcome {
	results := make([]replay.Outcome, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs && w < len(paths); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = replay.Check(c.Context(), paths[i], o)
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

// showReplay prints what replaying one trace found: an incomplete recording on stderr,
// then one line with the verdict (two when a replay that differs also failed).
func showReplay(io stdio, r replay.Outcome) {
	if r.Incomplete != "" {
		fmt.Fprintf(io.err, "%s: %s\n", r.Path, r.Incomplete)
	}
	var ce *trace.ChainError
	if r.ChainErr != nil && (r.Failed == nil || errors.As(r.ChainErr, &ce)) { // else the reader's error, in Failed
		printLine(io.out, "%s: hash chain broken at %v", r.Path, r.ChainErr)
	}
	if r.OtherRules != "" {
		fmt.Fprintf(io.out, "%s: %s\n", r.Path, r.OtherRules)
	}
	switch {
	case r.SigErr != nil:
		fmt.Fprintf(io.out, "%s: %v\n", r.Path, r.SigErr)
	case r.Verified:
		fmt.Fprintf(io.out, "%s: %s (verified)\n", r.Path, r.Signature)
	case r.Signature.Signed:
		fmt.Fprintf(io.out, "%s: %s (not verified: pass --verify-key)\n", r.Path, r.Signature)
	}
	var unusable *replay.RecordingError
	switch {
	case r.Failed != nil:
		// No replay ran: an error, on stderr. A recording's values are quoted as
		// excerpts: a line may be megabytes.
		fmt.Fprintf(io.err, "%s: %s\n", r.Path, linecap.BoundQuotes(r.Failed.Error()))
	case r.Diff != nil:
		printLine(io.out, "%s: differs from the recording at %s", r.Path, r.Diff)
		if r.ReplayErr != nil {
			fmt.Fprintf(io.out, "%s: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
		}
	case r.ReplayErr != nil && r.Incomplete != "" && errors.Is(r.ReplayErr, replay.ErrRecordingEnded):
		// What the recording holds was reproduced, but the run could not be: it needed
		// what was lost with the cut.
		fmt.Fprintf(io.out, "%s: incomplete: the recording ends before the run did, and the replay needed more than the %d complete lines: %v\n", r.Path, r.Lines, r.ReplayErr)
	case errors.As(r.ReplayErr, &unusable):
		// The recording could not be used: an error about the input, on stderr.
		fmt.Fprintf(io.err, "%s: recording unusable: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
	case r.ReplayErr != nil:
		fmt.Fprintf(io.out, "%s: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
	case r.Compare && r.Incomplete != "":
		// The recorded run's end was in the lost line, so no outcome is claimed.
		note := r.ChainNote()
		if r.ChainErr != nil {
			note = "but the recording's chain is broken"
		}
		printLine(io.out, "%s: incomplete: the recording ends before the run did; %d complete lines reproduced (%s)", r.Path, r.Lines, note)
	case r.Compare && r.ChainErr != nil:
		printLine(io.out, "%s: the replay is identical to the recording (%d lines), but the recording's chain is broken · %s", r.Path, r.Lines, r.Ending())
	case r.Compare:
		printLine(io.out, "%s: identical to the recording (%d lines, %s) · %s", r.Path, r.Lines, r.ChainNote(), r.Ending())
	case !r.Chain.Chained && r.ChainErr == nil:
		printLine(io.out, "%s: replayed · %s · %s", r.Path, r.ReplayedEnding(), r.Chain)
	default:
		printLine(io.out, "%s: replayed · %s", r.Path, r.ReplayedEnding())
	}
}

// traceArgs expands directories into the *.jsonl files under them, sorted.
func traceArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("expected trace files or directories")
	}
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				found = append(found, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no .jsonl traces", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// writeNewFile writes data to path, which must not exist.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
