// Package memtext renders what the memory store reports for a terminal: the tables and
// reports of `spine memory ls|show|potentials|dream|gc|import|verify|repair` and what
// `spine feedback` recorded. A view takes the
// store's values and an io.Writer; it opens no store and decides no exit status.
//
// A record's fields come from a run or an import and may hold anything: they are written
// only through termtext, a cell or a field as one escaped line.
package memtext

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/memory"
)

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Entries is the table of `memory ls`, then the count.
func Entries(w io.Writer, entries []memory.Entry) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tSTATE\tF\tSIGMA\tK\tATTENTION\tCREATED\tSPACE\tENTITY\tNOTE")
	// A cell is one line with no tab of its own.
	line := termtext.Line
	for _, e := range entries {
		note := ""
		switch {
		case e.SupersededBy != "":
			note = "superseded by " + e.SupersededBy
		case e.Supersedes != "":
			note = "supersedes " + e.Supersedes
		}
		if note != "" {
			note = "\t" + line(note) // no trailing blanks on rows without a note
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%+g\t%g\t%.4f\t%s\t%s\t%s%s\n", line(e.ID), line(e.Level), line(orDash(e.State)), e.F, e.Sigma, e.K,
			e.Attention, e.CreatedAt.Format(time.RFC3339), line(e.Space), line(e.Entity), note)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d megrams\n", len(entries))
}

// Entry is one Megram as `memory show` writes it, its live potentials taken at now.
func Entry(w io.Writer, e memory.Entry, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, kv := range [][2]string{
		{"id", e.ID}, {"level", e.Level}, {"state", orDash(e.State)},
		{"space", e.Space}, {"entity", e.Entity},
		{"created_at", e.CreatedAt.Format(time.RFC3339Nano)},
		{"last_recalled_at", e.LastRecalledAt.Format(time.RFC3339Nano)},
		{"f / sigma / k", fmt.Sprintf("%g / %+g / %g", e.F, e.Sigma, e.K)},
		{"origin", orDash(e.Origin)},
		{"supersedes", orDash(e.Supersedes)},
		{"superseded_by", orDash(e.SupersededBy)},
		{"live", fmt.Sprintf("attention %.4f, decision %+.4f at %s", e.Attention, e.Decision, now.Format(time.RFC3339))},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", kv[0], termtext.Line(kv[1]))
	}
	tw.Flush()
	fmt.Fprintf(w, "content:\n")
	for _, line := range strings.Split(e.Content, "\n") {
		fmt.Fprintf(w, "  %s\n", termtext.Block(line))
	}
}

// Pair is a tag pair's live potentials, its entries by level and its C entries.
func Pair(w io.Writer, rep memory.PairReport) {
	var counts []string
	for _, l := range slices.Sorted(maps.Keys(rep.Counts)) {
		counts = append(counts, fmt.Sprintf("%s=%d", l, rep.Counts[l]))
	}
	termtext.Printf(w, "pair:      (%s, %s)", rep.Space, rep.Entity)
	fmt.Fprintf(w, "attention: %.4f\n", rep.Potentials.Attention)
	fmt.Fprintf(w, "decision:  %+.4f\n", rep.Potentials.Decision)
	termtext.Printf(w, "action:    %s", rep.Potentials.Action)
	termtext.Printf(w, "entries:   %s", orDash(strings.Join(counts, " ")))
	fmt.Fprintf(w, "C entries: %d\n", len(rep.SOPs))
	for _, sop := range rep.SOPs {
		termtext.Printf(w, "  %s %s sigma=%+g %q", sop.ID, sop.State, sop.Sigma, sop.Content)
	}
}

// Dream is a Dreamer pass: what it did, event by event, then its counts.
func Dream(w io.Writer, events []memory.DreamEvent, rep memory.DreamReport) {
	for _, ev := range events {
		termtext.Printf(w, "%s", ev.Line())
	}
	dry := ""
	if rep.DryRun {
		dry = " (dry run: nothing changed)"
	}
	fmt.Fprintf(w, "pass at %s: %d pairs, %d entries; consolidated %d, deferred %d, failed %d, bankrupt %d, forgotten %d%s\n",
		rep.At.Format(time.RFC3339), rep.Pairs, rep.Entries, rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten, dry)
}

// Verify is what a read-only check of the store in db found.
func Verify(w io.Writer, rep memory.VerifyReport, db string) {
	fmt.Fprintf(w, "%d records, %d index entries, %d level entries, %d recall entries\n",
		rep.Records, rep.Index, rep.Levels, rep.Recalls)
	for _, d := range rep.Damage {
		fmt.Fprintf(w, "damage: %s\n", d)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(rep.Damage) > 0 {
		fmt.Fprintf(w, "the counts above are of what is still readable; spine memory repair --db %s keeps a copy of the store and drops the damage\n", db)
	}
}

// Repair is what a repair dropped, where the backup is and what is left.
func Repair(w io.Writer, rep memory.RepairReport) {
	for _, d := range rep.Damage {
		fmt.Fprintf(w, "damage: %s\n", d)
	}
	fmt.Fprintf(w, "backup of the store as it was: %s\n", rep.Backup)
	fmt.Fprintf(w, "megrams: %d before, %d after\n", rep.Before, rep.After)
	for _, p := range rep.Problems {
		termtext.Printf(w, "problem: %s", p)
	}
}

// Imported is what `memory import` wrote.
func Imported(w io.Writer, rep memory.ImportReport) {
	if rep.Skipped > 0 {
		fmt.Fprintf(w, "imported %d megrams, skipped %d already stored\n", len(rep.Imported), rep.Skipped)
		return
	}
	fmt.Fprintf(w, "imported %d megrams\n", len(rep.Imported))
}

// ImportedJSON is what `memory import --json` writes of rep.
func ImportedJSON(rep memory.ImportReport) any {
	return struct {
		Imported int      `json:"imported"`
		Skipped  int      `json:"skipped"`
		IDs      []string `json:"ids"`
	}{len(rep.Imported), rep.Skipped, rep.Imported}
}

// Feedback is what `spine feedback` recorded in the store dir: each negative feedback
// record with the outcome it is against, then each outcome's pair's live potentials.
func Feedback(w io.Writer, dir string, records, against []memory.Record, potentials []contract.Potentials) {
	termtext.Printf(w, "recorded %d negative feedback record(s) in %s:", len(records), dir)
	for i, r := range records {
		termtext.Printf(w, "  %s %s (%s, %s) f=%g σ=%g k=%g origin=%s against %s",
			r.ID, r.State, r.Space, r.Entity, r.F, r.Sigma, r.K, r.Origin, against[i].ID)
	}
	for i, r := range against {
		p := potentials[i]
		termtext.Printf(w, "  (%s, %s) now: attention %.3f, decision %+.3f → %s", r.Space, r.Entity, p.Attention, noNegZero(p.Decision), p.Action)
	}
}

// noNegZero prints a decision that rounds to zero as +0.000, not -0.000.
func noNegZero(d float64) float64 {
	if d > -0.0005 && d < 0.0005 {
		return 0
	}
	return d
}

// Show writes each of vs as one JSON line on w with asJSON, else calls text: the --json
// choice of every `spine memory` verb.
func Show[T any](w io.Writer, asJSON bool, text func(), vs ...T) error {
	if !asJSON {
		text()
		return nil
	}
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// Corrupt points an error that says the store in db is damaged (memory.IsCorrupt) to
// verify and repair; any other error is returned as it is.
func Corrupt(err error, db string) error {
	if memory.IsCorrupt(err) {
		return fmt.Errorf("%w\nsee all of it: spine memory verify --db %s; repair it: spine memory repair --db %s", err, db, db)
	}
	return err
}
