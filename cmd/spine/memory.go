package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
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
	run                 func(ctx context.Context, io stdio, m *memFlags) int
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
	now                  string
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
			m.now, _ = fs.GetString("now")
			m.positional = args
			if err := checkMemFlags(v, m); err != nil {
				return err
			}
			return exitStatus(v.run(c.Context(), io, m))
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

// checkMemFlags checks what flag parsing cannot: the store, the argument count, --now.
func checkMemFlags(v memVerb, m *memFlags) error {
	usageErr := usageErrorf
	if m.db == "" {
		return usageErr("--db DIR is required")
	}
	want := 0
	if v.name == "show" || v.name == "import" {
		want = 1
	}
	if len(m.positional) != want {
		if want == 0 {
			return usageErr("unexpected argument %q", m.positional[0])
		}
		return usageErr("want exactly one %s argument, got %d", v.args, len(m.positional))
	}
	m.clock = memClock{}
	if m.now != "" {
		t, err := time.Parse(time.RFC3339Nano, m.now)
		if err != nil {
			return usageErr("--now %q: want an RFC 3339 time such as 2025-03-01T12:00:00Z", m.now)
		}
		m.clock = memClock{fixed: t}
	}
	return nil
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
func (m *memFlags) open(io stdio, verb string) (*memory.Service, bool) {
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
		fmt.Fprintf(io.err, "spine memory %s: no memory store in %s\n", verb, m.db)
		return nil, false
	}
	if err != nil {
		fmt.Fprintf(io.err, "spine memory %s: %v\n", verb, err)
		if memory.IsCorrupt(err) {
			fmt.Fprintf(io.err, "see all of it: spine memory verify --db %s; repair it: spine memory repair --db %s\n", m.db, m.db)
		}
		return nil, false
	}
	return s, true
}

func (m *memFlags) fail(io stdio, verb string, err error) int {
	fmt.Fprintf(io.err, "spine memory %s: %v\n", verb, err)
	return exitFail
}

func memJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "%s\n", b)
}

// memEntry is a record as the CLI shows it: stored fields plus what holds now.
type memEntry struct {
	memory.Record
	Attention    float64 `json:"attention"` // own live |f|·e^(−kΔt)
	Decision     float64 `json:"decision"`  // own live σ·f·e^(−kΔt)
	SupersededBy string  `json:"superseded_by,omitempty"`
}

func entryOf(r memory.Record, now time.Time) memEntry {
	att, dec := memory.Contribution(r.F, r.Sigma, r.K, r.LastRecalledAt, now)
	return memEntry{Record: r, Attention: att, Decision: dec}
}

func memLs(ctx context.Context, io stdio, m *memFlags) int {
	s, ok := m.open(io, "ls")
	if !ok {
		return exitFail
	}
	defer s.Close()
	now := m.clock.Now()
	var entries []memEntry
	by := map[string]string{}
	err := s.List(ctx, memory.ListFilter{Space: m.space, Entity: m.entity, Level: m.level}, func(r memory.Record) error {
		entries = append(entries, entryOf(r, now))
		if r.Supersedes != "" {
			by[r.Supersedes] = r.ID
		}
		return nil
	})
	if err != nil {
		return m.fail(io, "ls", err)
	}
	for i := range entries {
		entries[i].SupersededBy = by[entries[i].ID]
	}
	if m.jsonOut {
		for _, e := range entries {
			memJSON(io.rawOut, e)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tSTATE\tF\tSIGMA\tK\tATTENTION\tCREATED\tSPACE\tENTITY\tNOTE")
	for _, e := range entries {
		note := ""
		switch {
		case e.SupersededBy != "":
			note = "superseded by " + e.SupersededBy
		case e.Supersedes != "":
			note = "supersedes " + e.Supersedes
		}
		if note != "" {
			note = "\t" + termtext.Line(note) // no trailing blanks on rows without a note
		}
		// A cell is one line with no tab of its own: a record's fields come from a run or
		// an import, and may hold anything.
		line := termtext.Line
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%+g\t%g\t%.4f\t%s\t%s\t%s%s\n", line(e.ID), line(e.Level), line(orDash(e.State)), e.F, e.Sigma, e.K,
			e.Attention, e.CreatedAt.Format(time.RFC3339), line(e.Space), line(e.Entity), note)
	}
	tw.Flush()
	fmt.Fprintf(io.out, "%d megrams\n", len(entries))
	return exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func memShow(ctx context.Context, io stdio, m *memFlags) int {
	s, ok := m.open(io, "show")
	if !ok {
		return exitFail
	}
	defer s.Close()
	r, err := s.Get(ctx, m.positional[0])
	if err != nil {
		return m.fail(io, "show", err)
	}
	e := entryOf(r, m.clock.Now())
	if e.SupersededBy, err = s.SupersededBy(ctx, r); err != nil {
		return m.fail(io, "show", err)
	}
	if m.jsonOut {
		memJSON(io.rawOut, e)
		return exitOK
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 1, ' ', 0)
	for _, kv := range [][2]string{
		{"id", e.ID}, {"level", e.Level}, {"state", orDash(e.State)},
		{"space", e.Space}, {"entity", e.Entity},
		{"created_at", e.CreatedAt.Format(time.RFC3339Nano)},
		{"last_recalled_at", e.LastRecalledAt.Format(time.RFC3339Nano)},
		{"f / sigma / k", fmt.Sprintf("%g / %+g / %g", e.F, e.Sigma, e.K)},
		{"origin", orDash(e.Origin)},
		{"supersedes", orDash(e.Supersedes)},
		{"superseded_by", orDash(e.SupersededBy)},
		{"live", fmt.Sprintf("attention %.4f, decision %+.4f at %s", e.Attention, e.Decision, m.clock.Now().Format(time.RFC3339))},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", kv[0], termtext.Line(kv[1]))
	}
	tw.Flush()
	fmt.Fprintf(io.out, "content:\n")
	for _, line := range strings.Split(e.Content, "\n") {
		fmt.Fprintf(io.out, "  %s\n", termtext.Block(line))
	}
	return exitOK
}

func memPotentials(ctx context.Context, io stdio, m *memFlags) int {
	switch {
	case m.intent != "" && (m.space != "" || m.entity != ""):
		fmt.Fprintln(io.err, "spine memory potentials: give --intent or --space and --entity, not both")
		return exitUsage
	case m.intent != "":
		m.space, m.entity = memory.IntentSpace(m.intent), memory.EntityLocal
	case m.space == "" || m.entity == "":
		fmt.Fprintln(io.err, "spine memory potentials: --space and --entity (or --intent) are required")
		return exitUsage
	}
	s, ok := m.open(io, "potentials")
	if !ok {
		return exitFail
	}
	defer s.Close()
	rep, err := s.Pair(ctx, m.space, m.entity)
	if err != nil {
		return m.fail(io, "potentials", err)
	}
	if m.jsonOut {
		memJSON(io.rawOut, rep)
		return exitOK
	}
	levels := make([]string, 0, len(rep.Counts))
	for l := range rep.Counts {
		levels = append(levels, l)
	}
	sort.Strings(levels)
	counts := make([]string, len(levels))
	for i, l := range levels {
		counts[i] = fmt.Sprintf("%s=%d", l, rep.Counts[l])
	}
	printLine(io.out, "pair:      (%s, %s)", rep.Space, rep.Entity)
	fmt.Fprintf(io.out, "attention: %.4f\n", rep.Potentials.Attention)
	fmt.Fprintf(io.out, "decision:  %+.4f\n", rep.Potentials.Decision)
	printLine(io.out, "action:    %s", rep.Potentials.Action)
	printLine(io.out, "entries:   %s", orDash(strings.Join(counts, " ")))
	fmt.Fprintf(io.out, "C entries: %d\n", len(rep.SOPs))
	for _, sop := range rep.SOPs {
		printLine(io.out, "  %s %s sigma=%+g %q", sop.ID, sop.State, sop.Sigma, sop.Content)
	}
	return exitOK
}

func memDream(ctx context.Context, io stdio, m *memFlags) int {
	d, closeJournal, err := m.dreamDistiller()
	if err != nil {
		fmt.Fprintf(io.err, "spine memory dream: %v\n", err)
		return exitUsage
	}
	m.distiller = d
	code := m.runDream(ctx, io, "dream", memory.DreamOptions{DryRun: m.dryRun}, false)
	if err := closeJournal(); err != nil {
		fmt.Fprintf(io.err, "spine memory dream: journal: %v\n", err)
		return exitFail
	}
	return code
}

func memGC(ctx context.Context, io stdio, m *memFlags) int {
	return m.runDream(ctx, io, "gc", memory.DreamOptions{DryRun: m.dryRun, SkipConsolidation: true, SkipBankruptcy: true}, !m.dryRun)
}

func (m *memFlags) runDream(ctx context.Context, io stdio, verb string, o memory.DreamOptions, compact bool) int {
	s, ok := m.open(io, verb)
	if !ok {
		return exitFail
	}
	defer s.Close()
	rep, err := s.Dream(ctx, o)
	if err == nil && compact {
		err = s.Compact(ctx)
	}
	if err != nil {
		return m.fail(io, verb, err)
	}
	if m.jsonOut {
		events := m.events
		if events == nil {
			events = []memory.DreamEvent{}
		}
		memJSON(io.rawOut, struct {
			Report memory.DreamReport  `json:"report"`
			Events []memory.DreamEvent `json:"events"`
		}{rep, events})
		return exitOK
	}
	for _, ev := range m.events {
		// kind (space, entity) [id] [→ new id] [(not applied | error)]: rule
		var b strings.Builder
		fmt.Fprintf(&b, "%-22s (%s, %s)", ev.Kind, ev.Space, ev.Entity)
		if ev.ID != "" {
			b.WriteString(" " + ev.ID)
		}
		if ev.NewID != "" {
			b.WriteString(" → " + ev.NewID)
		}
		switch {
		case ev.Error != "":
			b.WriteString(" (" + ev.Error + ")")
		case !ev.Applied:
			b.WriteString(" (not applied)")
		}
		printLine(io.out, "%s: %s", b.String(), ev.Rule)
	}
	dry := ""
	if rep.DryRun {
		dry = " (dry run: nothing changed)"
	}
	fmt.Fprintf(io.out, "pass at %s: %d pairs, %d entries; consolidated %d, deferred %d, failed %d, bankrupt %d, forgotten %d%s\n",
		rep.At.Format(time.RFC3339), rep.Pairs, rep.Entries, rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten, dry)
	return exitOK
}

// memImport reads one JSONL file of either kind: Megrams, one per line (a Megram object
// or a {"type":"Megram",...} envelope), appended as operator imports; or the lines of
// memory export, restored under their own IDs. Every line is checked before anything
// is written.
func memImport(ctx context.Context, sio stdio, m *memFlags) int {
	var in io.Reader = sio.in
	name := m.positional[0]
	if name != "-" {
		// A named file must be a regular one: a FIFO would hang, /dev/zero never end.
		f, err := trace.OpenRegular(name)
		if err != nil {
			return m.fail(sio, "import", err)
		}
		defer f.Close()
		in = f
	}
	var ms []contract.Megram
	var recs []memory.ExportedRecord
	var lines []int
	lr := linecap.New(name, in)
	for n := 1; ; n++ {
		line, _, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m.fail(sio, "import", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			exported := memIsExportLine(line)
			if len(lines) > 0 && exported != (recs != nil) {
				fmt.Fprintf(sio.err, "spine memory import: line %d: %s among %s; a file holds one kind\n", n,
					map[bool]string{true: "an exported record", false: "a Megram"}[exported],
					map[bool]string{true: "exported records", false: "Megrams"}[!exported])
				return exitFail
			}
			if exported {
				r, perr := memory.ParseExportLine(line)
				if perr != nil {
					fmt.Fprintf(sio.err, "spine memory import: line %d: %s\n", n, linecap.BoundQuotes(perr.Error()))
					return exitFail
				}
				recs = append(recs, r)
			} else {
				mg, perr := memParseMegramLine(line)
				if perr != nil {
					fmt.Fprintf(sio.err, "spine memory import: line %d: %s\n", n, linecap.BoundQuotes(perr.Error()))
					return exitFail
				}
				ms = append(ms, mg)
			}
			lines = append(lines, n)
		}
	}
	s, ok := m.open(sio, "import")
	if !ok {
		return exitFail
	}
	defer s.Close()
	o := memory.ImportOptions{SkipExisting: m.skipExisting}
	var rep memory.ImportReport
	var err error
	if recs != nil {
		rep, err = s.Restore(ctx, recs, o)
	} else {
		rep, err = s.ImportWith(ctx, ms, o)
	}
	var ie *memory.ImportError
	if errors.As(err, &ie) {
		// The record's own values (its id) are quoted as excerpts: a line may be megabytes.
		fmt.Fprintf(sio.err, "spine memory import: line %d: %s\n", lines[ie.Index], linecap.BoundQuotes(ie.Err.Error()))
		return exitFail
	}
	if err != nil {
		if len(rep.Imported) > 0 && !m.skipExisting {
			err = fmt.Errorf("%w; run it again with --skip-existing", err)
		}
		return m.fail(sio, "import", err)
	}
	if m.jsonOut {
		memJSON(sio.rawOut, struct {
			Imported int      `json:"imported"`
			Skipped  int      `json:"skipped"`
			IDs      []string `json:"ids"`
		}{len(rep.Imported), rep.Skipped, rep.Imported})
		return exitOK
	}
	if rep.Skipped > 0 {
		fmt.Fprintf(sio.out, "imported %d megrams, skipped %d already stored\n", len(rep.Imported), rep.Skipped)
		return exitOK
	}
	fmt.Fprintf(sio.out, "imported %d megrams\n", len(rep.Imported))
	return exitOK
}

// memIsExportLine tells a line of memory export by its type; anything else is read as
// a Megram, whose parser names what is wrong with it.
func memIsExportLine(line []byte) bool {
	var probe struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Type == memory.ExportType
}

// memExport writes every record, in ID order, as JSONL on standard output.
func memExport(ctx context.Context, sio stdio, m *memFlags) int {
	s, ok := m.open(sio, "export")
	if !ok {
		return exitFail
	}
	defer s.Close()
	n, err := s.Export(ctx, sio.rawOut)
	if err != nil {
		return m.fail(sio, "export", err)
	}
	fmt.Fprintf(sio.err, "exported %d records\n", n)
	return exitOK
}

func memParseMegramLine(line []byte) (contract.Megram, error) {
	var probe struct {
		Type    *string         `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return contract.Megram{}, fmt.Errorf("not a JSON object: %v", err)
	}
	body := line
	if probe.Type != nil {
		if *probe.Type != contract.TypeMegram {
			return contract.Megram{}, fmt.Errorf("envelope of type %s, want %q", linecap.ExcerptString(*probe.Type), contract.TypeMegram)
		}
		body = probe.Payload
	}
	var mg contract.Megram
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mg); err != nil {
		for _, f := range []string{"origin", "supersedes", "attention", "decision", "superseded_by"} {
			if err.Error() == `json: unknown field "`+f+`"` {
				// A line of memory ls --json, which shows records and live potentials.
				return contract.Megram{}, fmt.Errorf("megram: %v (memory ls --json lists a store; memory export writes what import restores)", err)
			}
		}
		return contract.Megram{}, fmt.Errorf("megram: %v", err)
	}
	return mg, nil
}

func memVerify(ctx context.Context, io stdio, m *memFlags) int {
	// Read-only: a damaged store is shown as it was found, never replayed or repaired.
	rep, err := memory.VerifyLevelDB(ctx, m.db)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(io.err, "spine memory verify: no memory store in %s\n", m.db)
		return exitFail
	}
	if err != nil {
		return m.fail(io, "verify", err)
	}
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	if m.jsonOut {
		memJSON(io.rawOut, rep)
	} else {
		fmt.Fprintf(io.out, "%d records, %d index entries, %d level entries, %d recall entries\n",
			rep.Records, rep.Index, rep.Levels, rep.Recalls)
		for _, d := range rep.Damage {
			fmt.Fprintf(io.out, "damage: %s\n", d)
		}
		for _, p := range rep.Problems {
			fmt.Fprintf(io.out, "problem: %s\n", p)
		}
		if len(rep.Damage) > 0 {
			fmt.Fprintf(io.out, "the counts above are of what is still readable; spine memory repair --db %s keeps a copy of the store and drops the damage\n", m.db)
		}
	}
	if len(rep.Problems) > 0 || len(rep.Damage) > 0 {
		return exitFail
	}
	return exitOK
}

// memRepair backs the store up whole, under a name from the clock (--now), then rebuilds
// it.
func memRepair(ctx context.Context, io stdio, m *memFlags) int {
	backup := memory.BackupName(m.db, m.clock.Now().UTC().Format("20060102T150405Z"))
	rep, err := memory.RepairLevelDB(ctx, m.db, backup)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(io.err, "spine memory repair: no memory store in %s\n", m.db)
		return exitFail
	}
	if err != nil {
		return m.fail(io, "repair", err)
	}
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	if m.jsonOut {
		memJSON(io.out, rep)
	} else {
		for _, d := range rep.Damage {
			fmt.Fprintf(io.out, "damage: %s\n", d)
		}
		fmt.Fprintf(io.out, "backup of the store as it was: %s\n", rep.Backup)
		fmt.Fprintf(io.out, "megrams: %d before, %d after\n", rep.Before, rep.After)
		for _, p := range rep.Problems {
			printLine(io.out, "problem: %s", p)
		}
	}
	if len(rep.Problems) > 0 {
		return exitFail
	}
	return exitOK
}
