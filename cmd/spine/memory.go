package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/memory/memtext"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const memorySummary = "inspect, consolidate and garbage-collect the shared memory store"

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := groupCommand("memory", memorySummary, "verb")
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

// memVerb is one subcommand of `spine memory`.
type memVerb struct {
	name, args, summary string
	run                 func(ctx context.Context, io stdio, m *memFlags) error
}

var memVerbs = []memVerb{
	{"ls", "", "list Megrams, through the tag or level index when filtered", memLs},
	{"show", "ID", "show one Megram with its live potentials and supersession", memShow},
	{"potentials", "", "show the live potentials and C entries of a tag pair", memPotentials},
	{"dream", "", "run one Dreamer pass: trust bankruptcy, consolidation, forgetting", memDream},
	{"gc", "", "forget M/K entries whose attention decayed, then compact the store", memGC},
	{"export", "", "write every record as JSONL that import restores to an identical store", memExport},
	{"import", "FILE|-", "append GGS Megrams (objects or envelopes) or restore an export from a JSONL file", memImport},
	{"verify", "", "check the store's files and every record and index entry, read-only; exit 1 on damage", memVerify},
	{"repair", "", "copy the store to DIR.backup-<time>, then rebuild it, dropping what is damaged", memRepair},
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
	clock                memClock
	events               []memory.DreamEvent // collected from the store during a pass
	distiller            memory.Distiller    // dream: who words consolidations; nil defers them
	// dream: where the distiller comes from
	baseURL, model, config, record, replay string
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
				return usageErrorf("--db DIR is required")
			}
			if want := len(strings.Fields(v.args)); len(args) != want {
				if want == 0 {
					return usageErrorf("unexpected argument %q", args[0])
				}
				return usageErrorf("want exactly one %s argument, got %d", v.args, len(args))
			}
			var err error
			if m.clock, err = nowFlag(now); err != nil {
				return err
			}
			return v.run(c.Context(), io, m)
		},
	}
	defineMemFlags(c.Flags(), v.name, m)
	return c
}

// defineMemFlags defines on fs the flags of verb beyond memory's own, bound to m.
func defineMemFlags(fs *pflag.FlagSet, verb string, m *memFlags) {
	str := func(p *string, name, usage string) { fs.StringVar(p, name, "", usage) }
	boolean := func(p *bool, name, usage string) { fs.BoolVar(p, name, false, usage) }
	switch verb {
	case "ls":
		str(&m.space, "space", "only this `SPACE` (tag index)")
		str(&m.entity, "entity", "only this `ENTITY`; needs --space")
		str(&m.level, "level", "only this `LEVEL`: M, K, C or T")
	case "potentials":
		str(&m.space, "space", "`SPACE` of the tag pair")
		str(&m.entity, "entity", "`ENTITY` of the tag pair")
		str(&m.intent, "intent", "a task intent `TEXT`: the pair (intent:<slug>, env:local)")
	case "dream", "gc":
		boolean(&m.dryRun, "dry-run", "decide and report, change nothing")
		fs.DurationVar(&m.forgetGrace, "forget-grace", 0, "spare a pair whose newest M/K entry is younger than `DURATION` (default 0: the seed's rule, no grace)")
	case "import":
		boolean(&m.skipExisting, "skip-existing", "skip records already stored identically and refuse ones that differ, so an interrupted import can be run again")
	}
	if verb == "dream" {
		str(&m.baseURL, "base-url", "OpenAI-compatible endpoint `URL` of the model that words consolidations")
		str(&m.model, "model", "`NAME` of the model that words consolidations (default: $SPINE_MODEL)")
		str(&m.config, "config", "YAML model configuration `FILE`, as for spine run")
		str(&m.record, "record", "journal every distiller exchange to this new `FILE`, for --replay")
		str(&m.replay, "replay", "word consolidations from a journal `FILE` written by --record, calling no model")
	}
}

// memClock is the host clock, or a fixed time given with --now.
type memClock struct{ fixed time.Time }

func (c memClock) Now() time.Time {
	if c.fixed.IsZero() {
		return time.Now().UTC()
	}
	return c.fixed
}

// open opens the store; only import may create one.
func (m *memFlags) open(verb string) (*memory.Service, error) {
	var dream memory.DreamConfig // zero: the defaults
	if m.forgetGrace != 0 {
		dream = memory.DefaultDreamConfig()
		dream.ForgetGrace = m.forgetGrace
	}
	s, err := memory.OpenLevelDB(m.db, memory.Options{
		Clock:        m.clock,
		Dream:        dream,
		Distiller:    m.distiller,
		Storage:      memory.StorageOptions{MustExist: verb != "import"},
		OnDreamEvent: func(ev memory.DreamEvent) { m.events = append(m.events, ev) },
	})
	if errors.Is(err, fs.ErrNotExist) && verb != "import" {
		return nil, fmt.Errorf("no memory store in %s", m.db)
	}
	if memory.IsCorrupt(err) {
		return nil, fmt.Errorf("%w\nsee all of it: spine memory verify --db %s; repair it: spine memory repair --db %s", err, m.db, m.db)
	}
	return s, err
}

func memJSON(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// memRead opens the store for a read-only verb, asks it with q, and writes the answer as a
// JSON line with --json, else through text.
func memRead[T any](m *memFlags, io stdio, verb string, q func(*memory.Service) (T, error), text func(T)) error {
	s, err := m.open(verb)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := q(s)
	switch {
	case err != nil:
		return err
	case m.jsonOut:
		return memJSON(io.rawOut, v)
	}
	text(v)
	return nil
}

func memLs(ctx context.Context, io stdio, m *memFlags) error {
	s, err := m.open("ls")
	if err != nil {
		return err
	}
	defer s.Close()
	entries, err := s.Entries(ctx, memory.ListFilter{Space: m.space, Entity: m.entity, Level: m.level}, m.clock.Now())
	if err != nil {
		return err
	}
	if !m.jsonOut {
		memtext.Entries(io.out, entries)
		return nil
	}
	for _, e := range entries {
		if err := memJSON(io.rawOut, e); err != nil {
			return err
		}
	}
	return nil
}

func memShow(ctx context.Context, io stdio, m *memFlags) error {
	return memRead(m, io, "show", func(s *memory.Service) (memory.Entry, error) { return s.Entry(ctx, m.positional[0], m.clock.Now()) },
		func(e memory.Entry) { memtext.Entry(io.out, e, m.clock.Now()) })
}

func memPotentials(ctx context.Context, io stdio, m *memFlags) error {
	switch {
	case m.intent != "" && (m.space != "" || m.entity != ""):
		return usageErrorf("give --intent or --space and --entity, not both")
	case m.intent != "":
		m.space, m.entity = memory.IntentSpace(m.intent), memory.EntityLocal
	case m.space == "" || m.entity == "":
		return usageErrorf("--space and --entity (or --intent) are required")
	}
	return memRead(m, io, "potentials", func(s *memory.Service) (memory.PairReport, error) { return s.Pair(ctx, m.space, m.entity) },
		func(rep memory.PairReport) { memtext.Pair(io.out, rep) })
}

func memDream(ctx context.Context, io stdio, m *memFlags) error {
	d, closeJournal, err := taskrun.DreamDistiller(taskrun.DistillerSource{Replay: m.replay, Record: m.record,
		BaseURL: m.baseURL, Model: m.model, Config: m.config, Getenv: os.LookupEnv})
	if err != nil {
		return usageErrorf("%v", err)
	}
	m.distiller = d
	err = m.runDream(ctx, io, "dream", memory.DreamOptions{DryRun: m.dryRun}, false)
	if cerr := closeJournal(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("journal: %w", cerr))
	}
	return err
}

func memGC(ctx context.Context, io stdio, m *memFlags) error {
	return m.runDream(ctx, io, "gc", memory.DreamOptions{DryRun: m.dryRun, SkipConsolidation: true, SkipBankruptcy: true}, !m.dryRun)
}

func (m *memFlags) runDream(ctx context.Context, io stdio, verb string, o memory.DreamOptions, compact bool) error {
	s, err := m.open(verb)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.Dream(ctx, o)
	if err == nil && compact {
		err = s.Compact(ctx)
	}
	if err != nil {
		return err
	}
	if m.jsonOut {
		return memJSON(io.rawOut, struct {
			Report memory.DreamReport  `json:"report"`
			Events []memory.DreamEvent `json:"events"`
		}{rep, append([]memory.DreamEvent{}, m.events...)})
	}
	memtext.Dream(io.out, m.events, rep)
	return nil
}

// memImport reads one JSONL file (memory.ReadImportFile), checking every line before
// anything is written, then imports or restores it.
func memImport(ctx context.Context, sio stdio, m *memFlags) error {
	var in io.Reader = sio.in
	name := m.positional[0]
	if name != "-" {
		// A named file must be a regular one: a FIFO would hang, /dev/zero never end.
		f, err := trace.OpenRegular(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	file, err := memory.ReadImportFile(name, in)
	if err != nil {
		return err
	}
	s, err := m.open("import")
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.ImportFile(ctx, file, memory.ImportOptions{SkipExisting: m.skipExisting})
	var ie *memory.ImportError
	if err != nil && len(rep.Imported) > 0 && !m.skipExisting && !errors.As(err, &ie) {
		err = fmt.Errorf("%w; run it again with --skip-existing", err)
	}
	switch {
	case err != nil:
		return err
	case m.jsonOut:
		return memJSON(sio.rawOut, struct {
			Imported int      `json:"imported"`
			Skipped  int      `json:"skipped"`
			IDs      []string `json:"ids"`
		}{len(rep.Imported), rep.Skipped, rep.Imported})
	case rep.Skipped > 0:
		fmt.Fprintf(sio.out, "imported %d megrams, skipped %d already stored\n", len(rep.Imported), rep.Skipped)
	default:
		fmt.Fprintf(sio.out, "imported %d megrams\n", len(rep.Imported))
	}
	return nil
}

// memExport writes every record, in ID order, as JSONL on standard output.
func memExport(ctx context.Context, sio stdio, m *memFlags) error {
	s, err := m.open("export")
	if err != nil {
		return err
	}
	defer s.Close()
	n, err := s.Export(ctx, sio.rawOut)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.err, "exported %d records\n", n)
	return nil
}

// storeMissing words a store that is not there as open does.
func storeMissing(db string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no memory store in %s", db)
	}
	return err
}

func memVerify(ctx context.Context, io stdio, m *memFlags) error {
	// Read-only: a damaged store is shown as it was found, never replayed or repaired.
	rep, err := memory.VerifyLevelDB(ctx, m.db)
	if err != nil {
		return storeMissing(m.db, err)
	}
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	if m.jsonOut {
		if err := memJSON(io.rawOut, rep); err != nil {
			return err
		}
	} else {
		memtext.Verify(io.out, rep, m.db)
	}
	if len(rep.Problems) > 0 || len(rep.Damage) > 0 {
		return exitStatus(exitFail) // the findings above are the result
	}
	return nil
}

// memRepair backs the store up whole, under a name from the clock (--now), then rebuilds
// it.
func memRepair(ctx context.Context, io stdio, m *memFlags) error {
	backup := memory.BackupName(m.db, m.clock.Now().UTC().Format("20060102T150405Z"))
	rep, err := memory.RepairLevelDB(ctx, m.db, backup)
	if err != nil {
		return storeMissing(m.db, err)
	}
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	if m.jsonOut {
		if err := memJSON(io.out, rep); err != nil {
			return err
		}
	} else {
		memtext.Repair(io.out, rep)
	}
	if len(rep.Problems) > 0 {
		return exitStatus(exitFail) // the problems above are the result
	}
	return nil
}
