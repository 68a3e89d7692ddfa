package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/memory/memtext"
	"github.com/agentspine/spine/taskrun"
)

const memorySummary = "inspect, consolidate and garbage-collect the shared memory store"

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := cli.GroupCommand("memory", memorySummary, "verb")
		c.Long = memorySummary + `

Every verb takes --db DIR, --json for JSON output and --now TIME (RFC 3339) to evaluate
decay at a given time instead of the host clock. dream words consolidations with a model
when one is configured (--base-url / --model / --config, as for spine run), or from a
journal (--replay); without either it reports them as deferred.`
		pf := c.PersistentFlags()
		pf.String("db", "", "store `DIR` (required)")
		pf.Bool("json", false, "write JSON instead of text")
		pf.String("now", "", "evaluate decay at this RFC 3339 `TIME` instead of the host clock")
		return c
	})
	for _, v := range memVerbs {
		addCommand("memory", func(io stdio) *cobra.Command { return memVerbCommand(io, v) })
	}
}

// memVerb is one subcommand of `spine memory`: its flags beyond memory's own, and its run.
type memVerb struct {
	name, args, summary string
	flags               func(fs *pflag.FlagSet, m *memFlags)
	run                 func(ctx context.Context, io stdio, m *memFlags) error
}

var memVerbs = []memVerb{
	{"ls", "", "list Megrams, through the tag or level index when filtered", lsFlags, memLs},
	{"show", "ID", "show one Megram with its live potentials and supersession", nil, memShow},
	{"potentials", "", "show the live potentials and C entries of a tag pair", pairFlags, memPotentials},
	{"dream", "", "run one Dreamer pass: trust bankruptcy, consolidation, forgetting", dreamFlags, memDream},
	{"gc", "", "forget M/K entries whose attention decayed, then compact the store", passFlags, memGC},
	{"export", "", "write every record as JSONL that import restores to an identical store", nil, memExport},
	{"import", "FILE|-", "append GGS Megrams (objects or envelopes) or restore an export from a JSONL file", importFlags, memImport},
	{"verify", "", "check the store's files and every record and index entry, read-only; exit 1 on damage", nil, memVerify},
	{"repair", "", "copy the store to DIR.backup-<time>, then rebuild it, dropping what is damaged", nil, memRepair},
}

// memFlags are the flags every verb accepts; each verb uses the ones it needs.
type memFlags struct {
	db                   string
	jsonOut              bool
	space, entity, level string
	intent               string
	dryRun               bool
	skipExisting         bool          // import: skip identical stored records, refuse differing ones
	forgetGrace          time.Duration // dream, gc: spare pairs whose newest M/K entry is younger
	positional           []string
	clock                clock.Clock
	// dream: where the distiller comes from
	endpoint       endpointFlags
	record, replay string
}

// memVerbCommand is `spine memory <verb>` with the verb's own flags; --db, --json and
// --now are memory's, taken before or after the verb.
func memVerbCommand(io stdio, v memVerb) *cobra.Command {
	m := &memFlags{}
	use := v.name + " [flags]"
	if v.args != "" {
		use += " " + v.args
	}
	c := &cobra.Command{
		Use:   use,
		Short: v.summary,
		RunE: func(c *cobra.Command, args []string) error {
			fs := c.Flags()
			m.db, _ = fs.GetString("db")
			m.jsonOut, _ = fs.GetBool("json")
			now, _ := fs.GetString("now")
			m.positional = args
			if m.db == "" {
				return cli.Usagef("--db DIR is required")
			}
			if want := len(strings.Fields(v.args)); len(args) != want {
				if want == 0 {
					return cli.Usagef("unexpected argument %q", args[0])
				}
				return cli.Usagef("want exactly one %s argument, got %d", v.args, len(args))
			}
			var err error
			if m.clock, err = nowFlag(now); err != nil {
				return err
			}
			return v.run(c.Context(), io, m)
		},
	}
	if v.flags != nil {
		v.flags(c.Flags(), m)
	}
	return c
}

func lsFlags(fs *pflag.FlagSet, m *memFlags) {
	fs.StringVar(&m.space, "space", "", "only this `SPACE` (tag index)")
	fs.StringVar(&m.entity, "entity", "", "only this `ENTITY`; needs --space")
	fs.StringVar(&m.level, "level", "", "only this `LEVEL`: M, K, C or T")
}

func pairFlags(fs *pflag.FlagSet, m *memFlags) {
	fs.StringVar(&m.space, "space", "", "`SPACE` of the tag pair")
	fs.StringVar(&m.entity, "entity", "", "`ENTITY` of the tag pair")
	fs.StringVar(&m.intent, "intent", "", "a task intent `TEXT`: the pair (intent:<slug>, env:local)")
}

// passFlags are the flags of a Dreamer pass (dream, gc).
func passFlags(fs *pflag.FlagSet, m *memFlags) {
	fs.BoolVar(&m.dryRun, "dry-run", false, "decide and report, change nothing")
	fs.DurationVar(&m.forgetGrace, "forget-grace", 0, "spare a pair whose newest M/K entry is younger than `DURATION` (default 0: the seed's rule, no grace)")
}

func dreamFlags(fs *pflag.FlagSet, m *memFlags) {
	passFlags(fs, m)
	m.endpoint.declare(fs, endpointHelp{
		baseURL: "OpenAI-compatible endpoint `URL` of the model that words consolidations",
		model:   "`NAME` of the model that words consolidations (default: $SPINE_MODEL)",
		config:  "YAML model configuration `FILE`, as for spine run",
	})
	fs.StringVar(&m.record, "record", "", "journal every distiller exchange to this new `FILE`, for --replay")
	fs.StringVar(&m.replay, "replay", "", "word consolidations from a journal `FILE` written by --record, calling no model")
}

func importFlags(fs *pflag.FlagSet, m *memFlags) {
	fs.BoolVar(&m.skipExisting, "skip-existing", false, "skip records already stored identically and refuse ones that differ, so an interrupted import can be run again")
}

// dir is how the verb opens the store; only import may create one.
func (m *memFlags) dir(create bool, d memory.Distiller) memory.DirOptions {
	return memory.DirOptions{Clock: m.clock, ForgetGrace: m.forgetGrace, Distiller: d, Create: create}
}

// with opens the store, hands it to f and closes it; a damaged store's error points to
// verify and repair (memtext.Corrupt).
func (m *memFlags) with(create bool, f func(*memory.Service) error) error {
	s, err := memory.OpenDir(m.db, m.dir(create, nil), nil)
	if err != nil {
		return memtext.Corrupt(err, m.db)
	}
	defer s.Close()
	return f(s)
}

// memRead opens the store for a read-only verb, asks it with q, and writes the answer as a
// JSON line with --json, else through text.
func memRead[T any](m *memFlags, io stdio, q func(*memory.Service) (T, error), text func(T)) error {
	return m.with(false, func(s *memory.Service) error {
		v, err := q(s)
		if err != nil {
			return err
		}
		return memtext.Show(io.rawOut, m.jsonOut, func() { text(v) }, v)
	})
}

func memLs(ctx context.Context, io stdio, m *memFlags) error {
	return m.with(false, func(s *memory.Service) error {
		entries, err := s.Entries(ctx, memory.ListFilter{Space: m.space, Entity: m.entity, Level: m.level}, m.clock.Now())
		if err != nil {
			return err
		}
		return memtext.Show(io.rawOut, m.jsonOut, func() { memtext.Entries(io.out, entries) }, entries...)
	})
}

func memShow(ctx context.Context, io stdio, m *memFlags) error {
	return memRead(m, io, func(s *memory.Service) (memory.Entry, error) { return s.Entry(ctx, m.positional[0], m.clock.Now()) },
		func(e memory.Entry) { memtext.Entry(io.out, e, m.clock.Now()) })
}

func memPotentials(ctx context.Context, io stdio, m *memFlags) error {
	switch {
	case m.intent != "" && (m.space != "" || m.entity != ""):
		return cli.Usagef("give --intent or --space and --entity, not both")
	case m.intent != "":
		m.space, m.entity = memory.IntentSpace(m.intent), memory.EntityLocal
	case m.space == "" || m.entity == "":
		return cli.Usagef("--space and --entity (or --intent) are required")
	}
	return memRead(m, io, func(s *memory.Service) (memory.PairReport, error) { return s.Pair(ctx, m.space, m.entity) },
		func(rep memory.PairReport) { memtext.Pair(io.out, rep) })
}

func memDream(ctx context.Context, io stdio, m *memFlags) error {
	d, closeJournal, err := taskrun.DreamDistiller(taskrun.DistillerSource{Replay: m.replay, Record: m.record,
		BaseURL: m.endpoint.baseURL, Model: m.endpoint.model, Config: m.endpoint.config, Getenv: os.LookupEnv})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	err = m.pass(ctx, io, d, memory.DreamOptions{DryRun: m.dryRun}, false)
	if cerr := closeJournal(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("journal: %w", cerr))
	}
	return err
}

func memGC(ctx context.Context, io stdio, m *memFlags) error {
	return m.pass(ctx, io, nil, memory.DreamOptions{DryRun: m.dryRun, SkipConsolidation: true, SkipBankruptcy: true}, !m.dryRun)
}

// pass runs one Dreamer pass (memory.DreamDir) and shows it.
func (m *memFlags) pass(ctx context.Context, io stdio, d memory.Distiller, o memory.DreamOptions, compact bool) error {
	res, err := memory.DreamDir(ctx, m.db, m.dir(false, d), o, compact)
	if err != nil {
		return memtext.Corrupt(err, m.db)
	}
	return memtext.Show(io.rawOut, m.jsonOut, func() { memtext.Dream(io.out, res.Events, res.Report) }, res)
}

// memImport reads one JSONL file (memory.OpenImportFile), checking every line before
// anything is written, then imports or restores it.
func memImport(ctx context.Context, sio stdio, m *memFlags) error {
	file, err := memory.OpenImportFile(m.positional[0], sio.in)
	if err != nil {
		return err
	}
	var rep memory.ImportReport
	err = m.with(true, func(s *memory.Service) error {
		rep, err = s.ImportFile(ctx, file, memory.ImportOptions{SkipExisting: m.skipExisting})
		return err
	})
	var ie *memory.ImportError
	if err != nil && len(rep.Imported) > 0 && !m.skipExisting && !errors.As(err, &ie) {
		err = fmt.Errorf("%w; run it again with --skip-existing", err)
	}
	if err != nil {
		return err
	}
	return memtext.Show(sio.rawOut, m.jsonOut, func() { memtext.Imported(sio.out, rep) }, memtext.ImportedJSON(rep))
}

// memExport writes every record, in ID order, as JSONL on standard output.
func memExport(ctx context.Context, sio stdio, m *memFlags) error {
	return m.with(false, func(s *memory.Service) error {
		n, err := s.Export(ctx, sio.rawOut)
		if err == nil {
			fmt.Fprintf(sio.err, "exported %d records\n", n)
		}
		return err
	})
}

func memVerify(ctx context.Context, io stdio, m *memFlags) error {
	// Read-only: a damaged store is shown as it was found, never replayed or repaired.
	rep, err := memory.VerifyDir(ctx, m.db)
	return m.findings(io.rawOut, rep, err, func() { memtext.Verify(io.out, rep, m.db) }, len(rep.Problems) > 0 || len(rep.Damage) > 0)
}

// memRepair backs the store up whole, under a name from the clock (--now), then rebuilds
// it.
func memRepair(ctx context.Context, io stdio, m *memFlags) error {
	rep, err := memory.RepairDir(ctx, m.db, m.clock.Now())
	return m.findings(io.out, rep, err, func() { memtext.Repair(io.out, rep) }, len(rep.Problems) > 0)
}

// findings shows what verify or repair found, as JSON on jsonOut with --json; what they
// found is the result, and makes the exit status 1.
func (m *memFlags) findings(jsonOut io.Writer, rep any, err error, text func(), found bool) error {
	if err == nil {
		err = memtext.Show(jsonOut, m.jsonOut, text, rep)
	}
	if err != nil {
		return err
	}
	if found {
		return cli.Exit(exitFail)
	}
	return nil
}
