package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
)

// DreamOnce runs one full pass synchronously: trust bankruptcy, consolidation, physical
// forgetting, in that order, with every decision sent to Options.OnDreamEvent.
func (s *Service) DreamOnce(ctx context.Context) (DreamReport, error) {
	return s.Dream(ctx, DreamOptions{})
}

// Dream runs one pass with options. One pass runs at a time; Close aborts a pass.
//
// The pass reads the whole idx: range once, in key order, so all entries of a pair
// arrive together; it decides per pair, then applies: bankruptcies in one batch, each
// consolidation in its own batch after its Distiller call, deletions in batches.
func (s *Service) Dream(ctx context.Context, o DreamOptions) (DreamReport, error) {
	var rep DreamReport
	err := s.use(func() error {
		s.passMu.Lock()
		defer s.passMu.Unlock()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.base, cancel)()
		var err error
		rep, err = s.dreamPass(ctx, o)
		return err
	})
	rep.LostWrites = s.LostWrites()
	return rep, err
}

type cEntry struct {
	id    string
	sigma float64
}

type forgetCand struct {
	ref        recordRef
	supersedes string
}

// pairForget is one pair whose M/K entries physical forgetting deletes, with the pair's
// live potentials that decided it.
type pairForget struct {
	entries []forgetCand
	pot     contract.Potentials
}

// pairScan accumulates one tag pair during the scan.
type pairScan struct {
	space, entity string
	acc           accumulator
	cs            []cEntry
	superseded    []string
	// mk is every M/K entry of the pair: forgetting reads the pair's sum, known only at
	// its last entry. Their IDs are kept as bytes in ids and made strings only for a
	// pair that is forgotten. newest is the latest decay reference among them.
	mk     []mkEntry
	ids    []byte
	newest time.Time
	now    time.Time
}

// mkEntry is one M/K entry of the scanned pair; its ID is pairScan.ids[start:end].
type mkEntry struct {
	start, end int
	level      string
	supersedes string
}

type bankruptcy struct {
	space, entity, id string
	pot               contract.Potentials
	rule              string
}

type consolidation struct {
	space, entity, kind string
	pot                 contract.Potentials
	rule                string
}

type passPlan struct {
	bankrupt    []bankruptcy
	consolidate []consolidation
	forget      []pairForget
}

func polarity(sigma float64) float64 {
	if sigma < 0 {
		return -1
	}
	return 1
}

func (s *Service) dreamPass(ctx context.Context, o DreamOptions) (DreamReport, error) {
	now := s.now()
	rep := DreamReport{At: now, DryRun: o.DryRun}
	plan, err := s.planPass(ctx, now, o, &rep)
	if err != nil {
		return rep, err
	}
	if err := s.applyBankruptcies(now, plan.bankrupt, o, &rep); err != nil {
		return rep, err
	}
	if err := s.applyConsolidations(ctx, now, plan.consolidate, o, &rep); err != nil {
		return rep, err
	}
	err = s.applyForgetting(ctx, now, plan.forget, o, &rep)
	return rep, err
}

// planPass scans the index once and decides every pair.
func (s *Service) planPass(ctx context.Context, now time.Time, o DreamOptions, rep *DreamReport) (passPlan, error) {
	var plan passPlan
	var cur pairScan
	started := false
	n := 0
	err := scanIndex(s.be, func(e indexEntry) error {
		if n++; n%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !started || e.Space != cur.space || e.Entity != cur.entity {
			if started {
				s.decidePair(&cur, o, &plan)
			}
			cur = pairScan{space: e.Space, entity: e.Entity, cs: cur.cs[:0], superseded: cur.superseded[:0],
				mk: cur.mk[:0], ids: cur.ids[:0], now: now}
			started = true
			rep.Pairs++
		}
		rep.Entries++
		if e.Supersedes != "" {
			cur.superseded = append(cur.superseded, e.Supersedes)
		}
		switch {
		case countsInPotentials(e.Level):
			att, dec := Contribution(e.F, e.Sigma, e.K, e.Ref, now)
			cur.acc.attention += att
			cur.acc.decision += dec
			cur.acc.entries++
			start := len(cur.ids)
			cur.ids = e.appendID(cur.ids)
			cur.mk = append(cur.mk, mkEntry{start: start, end: len(cur.ids), level: e.Level, supersedes: e.Supersedes})
			if e.Ref.After(cur.newest) {
				cur.newest = e.Ref
			}
		case e.Level == contract.LevelC:
			cur.cs = append(cur.cs, cEntry{id: e.id(), sigma: e.Sigma})
		}
		return nil
	})
	if err != nil {
		return plan, err
	}
	if started {
		s.decidePair(&cur, o, &plan)
	}
	return plan, ctx.Err()
}

// decidePair applies the rules to one pair's potentials.
func (s *Service) decidePair(p *pairScan, o DreamOptions, plan *passPlan) {
	cfg := s.dream
	att, dec := p.acc.attention, p.acc.decision
	pot := p.acc.potentials(s.actions)
	var live [2]bool // a live C entry of polarity −1, +1
	for _, c := range p.cs {
		if contains(p.superseded, c.id) {
			continue
		}
		pol := polarity(c.sigma)
		if !o.SkipBankruptcy && pol*dec < cfg.BankruptcyDecision {
			plan.bankrupt = append(plan.bankrupt, bankruptcy{
				space: p.space, entity: p.entity, id: c.id, pot: pot,
				rule: fmt.Sprintf("polarity %+g × M_decision %.6g < %g", pol, dec, cfg.BankruptcyDecision),
			})
			continue
		}
		live[polIndex(pol)] = true
	}
	if !o.SkipConsolidation && att >= cfg.ConsolidateAttention {
		switch {
		case dec >= cfg.BestPracticeDecision && !live[polIndex(1)]:
			plan.consolidate = append(plan.consolidate, consolidation{
				space: p.space, entity: p.entity, kind: KindBestPractice, pot: pot,
				rule: fmt.Sprintf("M_attention %.6g ≥ %g and M_decision %.6g ≥ %g", att, cfg.ConsolidateAttention, dec, cfg.BestPracticeDecision),
			})
		case dec <= cfg.ConstraintDecision && !live[polIndex(-1)]:
			plan.consolidate = append(plan.consolidate, consolidation{
				space: p.space, entity: p.entity, kind: KindConstraint, pot: pot,
				rule: fmt.Sprintf("M_attention %.6g ≥ %g and M_decision %.6g ≤ %g", att, cfg.ConsolidateAttention, dec, cfg.ConstraintDecision),
			})
		}
	}
	if !o.SkipForgetting && len(p.mk) > 0 && att < cfg.ForgetAttention && p.now.Sub(p.newest) >= cfg.ForgetGrace {
		// The scan's buffers are reused by the next pair: the plan keeps copies, all IDs
		// of the pair in one string.
		ids := string(p.ids)
		entries := make([]forgetCand, len(p.mk))
		for i, m := range p.mk {
			entries[i] = forgetCand{
				ref:        recordRef{ID: ids[m.start:m.end], Space: p.space, Entity: p.entity, Level: m.level},
				supersedes: m.supersedes,
			}
		}
		plan.forget = append(plan.forget, pairForget{entries: entries, pot: pot})
	}
}

func polIndex(pol float64) int {
	if pol < 0 {
		return 0
	}
	return 1
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func (s *Service) emit(ev DreamEvent) {
	if s.onDreamEvt != nil {
		s.onDreamEvt(ev)
	}
}

// applyBankruptcies appends, for each bankrupt C entry, a K entry that supersedes it: same
// tags, content, state, f and σ; k = DemotedK; its decay clock continues from the C
// entry's last recall, so an SOP nobody recalled for long fades fast once demoted.
func (s *Service) applyBankruptcies(now time.Time, bs []bankruptcy, o DreamOptions, rep *DreamReport) error {
	var c change
	var events []DreamEvent
	for _, b := range bs {
		old, err := s.be.get(b.id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		ev := DreamEvent{At: now, Kind: EventBankrupt, Space: b.space, Entity: b.entity, ID: b.id,
			Level: contract.LevelC, Attention: b.pot.Attention, Decision: b.pot.Decision, Rule: b.rule, Applied: !o.DryRun}
		if !o.DryRun {
			r := Record{
				Megram: contract.Megram{
					ID: s.ids.NewID(), Level: contract.LevelK, CreatedAt: now, LastRecalledAt: old.LastRecalledAt,
					Space: old.Space, Entity: old.Entity, Content: old.Content, State: old.State,
					F: old.F, Sigma: old.Sigma, K: s.dream.DemotedK,
				},
				Origin:     OriginDreamer,
				Supersedes: old.ID,
			}
			r.normalise()
			if err := r.validate(); err != nil {
				return errorf("demote %s: %v", old.ID, err)
			}
			c.puts = append(c.puts, r)
			ev.NewID = r.ID
		}
		events = append(events, ev)
	}
	if !c.empty() {
		if err := s.applyNew(&c); err != nil {
			return errorf("trust bankruptcy: %v", err)
		}
	}
	for _, ev := range events {
		rep.Bankrupt++
		s.emit(ev)
	}
	return nil
}

// consolidationBatch bounds how many new C entries one storage batch commits.
const consolidationBatch = 256

// applyNew commits records the Dreamer created. Their IDs come from the IDSource, but a
// record is never overwritten: an ID already stored aborts the batch.
func (s *Service) applyNew(c *change) error {
	c.noSync = true // see applyForgetting
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	for _, r := range c.puts {
		ok, err := s.be.has(r.ID)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("the ID source repeated %s, which is already stored; nothing written", r.ID)
		}
	}
	return s.be.apply(c)
}

// applyConsolidations asks the Distiller for the text of each decided C entry and
// appends it with k = 0 (timeless), f = 1 and σ = ±1 by kind, in batches; each event is
// emitted once its batch is committed.
func (s *Service) applyConsolidations(ctx context.Context, now time.Time, cs []consolidation, o DreamOptions, rep *DreamReport) error {
	var c change
	var pending []DreamEvent
	var scratch evidenceScratch
	commit := func() error {
		if len(c.puts) > 0 {
			if err := s.applyNew(&c); err != nil {
				return errorf("consolidate %d pairs: %v", len(c.puts), err)
			}
		}
		for _, ev := range pending {
			rep.Consolidated++
			s.emit(ev)
		}
		c, pending = change{}, pending[:0]
		return nil
	}
	for _, con := range cs {
		ev := DreamEvent{At: now, Kind: EventConsolidated, Space: con.space, Entity: con.entity, Level: contract.LevelC,
			Attention: con.pot.Attention, Decision: con.pot.Decision, Rule: con.rule}
		switch {
		case o.DryRun:
			rep.Consolidated++
			s.emit(ev)
			continue
		case s.distil == nil:
			ev.Kind, ev.Error = EventConsolidationDeferred, "no distiller configured"
			rep.Deferred++
			s.emit(ev)
			continue
		}
		content, err := s.distilPair(ctx, now, con, &scratch)
		if err == nil {
			var r Record
			r, err = s.consolidated(now, con, content)
			if err == nil {
				c.puts = append(c.puts, r)
				ev.NewID, ev.Applied = r.ID, true
				pending = append(pending, ev)
				if len(c.puts) == consolidationBatch {
					if err := commit(); err != nil {
						return err
					}
				}
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ev.Kind, ev.Error = EventConsolidationFailed, err.Error()
		rep.Failed++
		s.emit(ev)
	}
	return commit()
}

// consolidated builds the C entry of a decided consolidation.
func (s *Service) consolidated(now time.Time, con consolidation, content string) (Record, error) {
	sigma := 1.0
	if con.kind == KindConstraint {
		sigma = -1
	}
	r := Record{
		Megram: contract.Megram{
			ID: s.ids.NewID(), Level: contract.LevelC, CreatedAt: now, LastRecalledAt: now,
			Space: con.space, Entity: con.entity, Content: content, State: con.kind, F: 1, Sigma: sigma, K: 0,
		},
		Origin: OriginDreamer,
	}
	r.normalise()
	return r, r.validate()
}

// distilPair gathers the pair's heaviest evidence and calls the Distiller.
func (s *Service) distilPair(ctx context.Context, now time.Time, c consolidation, sc *evidenceScratch) (string, error) {
	ev, err := s.evidence(now, c.space, c.entity, sc)
	if err != nil {
		return "", err
	}
	resp, err := s.distil.Distil(ctx, DistilRequest{
		Kind: c.kind, Space: c.space, Entity: c.entity,
		Attention: c.pot.Attention, Decision: c.pot.Decision, Evidence: ev,
	})
	if err != nil {
		return "", fmt.Errorf("distiller: %w", err)
	}
	content := strings.TrimSpace(resp.Content)
	if content == "" {
		return "", errors.New("distiller returned empty content")
	}
	return content, nil
}

// evidenceScratch holds the buffers evidence reuses from one pair to the next.
type evidenceScratch struct {
	ids []byte
	ws  []weighted
}

// weighted is one M/K entry of the pair with its live weight; its ID is ids[start:end].
type weighted struct {
	w          float64
	start, end int
}

// evidence lists the pair's M/K entries by live weight, heaviest first, up to the limit.
// Only the entries sent are read; their IDs stay bytes until then.
func (s *Service) evidence(now time.Time, space, entity string, sc *evidenceScratch) ([]DistilEvidence, error) {
	sc.ids, sc.ws = sc.ids[:0], sc.ws[:0]
	err := scanPair(s.be, space, entity, func(e indexEntry) error {
		if countsInPotentials(e.Level) {
			att, _ := Contribution(e.F, e.Sigma, e.K, e.Ref, now)
			start := len(sc.ids)
			sc.ids = e.appendID(sc.ids)
			sc.ws = append(sc.ws, weighted{att, start, len(sc.ids)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ids := sc.ids
	// IDs are distinct within a pair, so this order is total and the sort's result unique.
	slices.SortFunc(sc.ws, func(a, b weighted) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		return bytes.Compare(ids[a.start:a.end], ids[b.start:b.end])
	})
	ws := sc.ws
	if len(ws) > s.dream.EvidenceLimit {
		ws = ws[:s.dream.EvidenceLimit]
	}
	out := make([]DistilEvidence, 0, len(ws))
	for _, w := range ws {
		r, err := s.be.getStored(ids[w.start:w.end])
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, DistilEvidence{ID: r.ID, State: r.State, Content: r.Content, F: r.F, Sigma: r.Sigma, Weight: w.w})
	}
	return out, nil
}

// forgetBatch bounds one deletion batch.
const forgetBatch = 4096

// forgotten is one entry of a forgotten pair, in the order the deletions are batched.
type forgotten struct {
	forgetCand
	pot contract.Potentials
}

// applyForgetting deletes every M/K entry of the decided pairs; deleting an entry that
// superseded a C entry deletes that C entry too, so the stale rule cannot come back.
func (s *Service) applyForgetting(ctx context.Context, now time.Time, ps []pairForget, o DreamOptions, rep *DreamReport) error {
	var fs []forgotten
	for _, p := range ps {
		for _, e := range p.entries {
			fs = append(fs, forgotten{e, p.pot})
		}
	}
	for start := 0; start < len(fs); start += forgetBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := fs[start:min(start+forgetBatch, len(fs))]
		var c change
		for _, f := range chunk {
			c.deletes = append(c.deletes, f.ref) // an M or K entry: it has no recall: key
			if f.supersedes != "" {
				c.deletes = append(c.deletes, recordRef{ID: f.supersedes, Space: f.ref.Space, Entity: f.ref.Entity, Level: contract.LevelC})
			}
		}
		if !o.DryRun {
			// Every Dreamer batch is a function of the stored state, so it is written
			// without waiting for fsync: after a host crash the next pass derives what
			// was lost again. (A killed process loses nothing: the journal is written.)
			// A pair split over two batches is decided already: a crash between them
			// leaves the rest of the pair below the threshold, and the next pass
			// deletes it.
			c.noSync = true
			s.applyMu.Lock()
			err := s.be.apply(&c)
			s.applyMu.Unlock()
			if err != nil {
				return errorf("forget: %v", err)
			}
		}
		rep.Forgotten += len(chunk)
		if s.onDreamEvt == nil {
			continue
		}
		for _, f := range chunk {
			s.emit(DreamEvent{At: now, Kind: EventForgotten, Space: f.ref.Space, Entity: f.ref.Entity, ID: f.ref.ID,
				Level: f.ref.Level, Attention: f.pot.Attention, Decision: f.pot.Decision, Applied: !o.DryRun,
				Rule: fmt.Sprintf("pair M_attention %.6g < %g", f.pot.Attention, s.dream.ForgetAttention)})
			if f.supersedes != "" {
				s.emit(DreamEvent{At: now, Kind: EventForgotten, Space: f.ref.Space, Entity: f.ref.Entity, ID: f.supersedes,
					Level: contract.LevelC, Applied: !o.DryRun,
					Rule: fmt.Sprintf("superseded by %s, which is forgotten", f.ref.ID)})
			}
		}
	}
	return nil
}
