package memory

import (
	"fmt"
	"time"
)

// DreamConfig holds the Dreamer's rules. Every promotion, demotion and deletion is one of
// these threshold tests on live potentials; nothing else decides.
type DreamConfig struct {
	// Consolidation: a pair with M_attention ≥ ConsolidateAttention and M_decision ≥
	// BestPracticeDecision gets a best-practice C entry; with M_decision ≤
	// ConstraintDecision a constraint C entry. A pair that already has a live C entry of
	// that polarity gets no second one.
	ConsolidateAttention float64 `json:"consolidate_attention"`
	BestPracticeDecision float64 `json:"best_practice_decision"`
	ConstraintDecision   float64 `json:"constraint_decision"`
	// Trust bankruptcy (seed 000 §6e, Λ_demote): the seed demotes a C entry once the
	// live M_decision of its pair has gone negative; the entry then loses its
	// timelessness (k back to 0.05) and drops to level K. Read literally that fits a
	// best practice only: a constraint's pair is negative by construction and would be
	// demoted the pass it was made. So the test is signed by the entry: a live C entry
	// whose polarity (+1 for σ ≥ 0, −1 otherwise) times its pair's live M_decision is
	// below BankruptcyDecision is superseded by a K entry with k = DemotedK. For a best
	// practice that is the seed's "M_decision < 0"; for a constraint it is "M_decision >
	// 0", i.e. the evidence turned against it.
	BankruptcyDecision float64 `json:"bankruptcy_decision"`
	DemotedK           float64 `json:"demoted_k"`
	// Physical forgetting (seed 000 §6e, Λ_gc): the seed hard-deletes the M and K
	// entries of a tag pair whose live M_attention, Σ|f_i|·e^(−k_i·Δt) over the pair's
	// M/K entries, has fallen under 0.1. The test reads the pair, never an entry alone:
	// five entries at 0.04 each make a pair at 0.2, which is kept whole; a pair under
	// ForgetAttention loses all its M/K entries at once (C entries are never forgotten,
	// except one superseded by a forgotten K entry).
	//
	// ForgetGrace, when positive, spares a pair while its newest M/K entry's decay
	// reference (last_recalled_at) is younger than the grace. The seed has no grace, and
	// the default is 0, which is the seed's rule exactly. It exists because the seed's
	// threshold equals the refine row's f (0.1): a pair holding a single refine Megram is
	// under the threshold an instant after the Megram is written, so the pass that
	// follows its task deletes it; a grace of, say, 36 h (about one half-life of the
	// refine row, k = 0.5 per day) keeps such a pair readable by the next tasks.
	ForgetAttention float64       `json:"forget_attention"`
	ForgetGrace     time.Duration `json:"forget_grace"`
	// EvidenceLimit caps the entries sent to the Distiller, heaviest first.
	EvidenceLimit int `json:"evidence_limit"`
	// SettleDelay is how long the background Dreamer waits after a FinalResult.
	SettleDelay time.Duration `json:"settle_delay"`
	// Interval, when positive, also runs a background pass on a timer.
	Interval time.Duration `json:"interval"`
}

// DefaultDreamConfig returns the MKCT defaults of seed 000: consolidate at attention 5
// and decision ±3, bankrupt below 0, demote to k = 0.05, forget a pair below attention
// 0.1, with no grace.
func DefaultDreamConfig() DreamConfig {
	return DreamConfig{
		ConsolidateAttention: 5,
		BestPracticeDecision: 3,
		ConstraintDecision:   -3,
		BankruptcyDecision:   0,
		DemotedK:             0.05,
		ForgetAttention:      0.1,
		EvidenceLimit:        16,
		SettleDelay:          2 * time.Second,
	}
}

// Validate reports a configuration whose rules contradict each other.
func (c DreamConfig) Validate() error {
	switch {
	case !(c.ConsolidateAttention > 0):
		return fmt.Errorf("memory: dream config: consolidate_attention %v, want > 0", c.ConsolidateAttention)
	case !(c.BestPracticeDecision > 0):
		return fmt.Errorf("memory: dream config: best_practice_decision %v, want > 0", c.BestPracticeDecision)
	case !(c.ConstraintDecision < 0):
		return fmt.Errorf("memory: dream config: constraint_decision %v, want < 0", c.ConstraintDecision)
	case !(c.DemotedK > 0 && c.DemotedK <= 100):
		return fmt.Errorf("memory: dream config: demoted_k %v, want in (0, 100]", c.DemotedK)
	case !(c.ForgetAttention >= 0):
		return fmt.Errorf("memory: dream config: forget_attention %v, want ≥ 0", c.ForgetAttention)
	case c.ForgetGrace < 0:
		return fmt.Errorf("memory: dream config: forget_grace %v, want ≥ 0", c.ForgetGrace)
	case c.EvidenceLimit < 1:
		return fmt.Errorf("memory: dream config: evidence_limit %d, want ≥ 1", c.EvidenceLimit)
	case c.SettleDelay < 0 || c.Interval < 0:
		return fmt.Errorf("memory: dream config: settle_delay %v and interval %v must not be negative", c.SettleDelay, c.Interval)
	}
	return nil
}

// DreamOptions select what one pass does.
type DreamOptions struct {
	// DryRun decides and reports everything but writes nothing and calls no Distiller.
	DryRun            bool
	SkipConsolidation bool
	SkipBankruptcy    bool
	SkipForgetting    bool
}

// Dream event kinds.
const (
	EventConsolidated          = "consolidated"
	EventConsolidationDeferred = "consolidation_deferred" // no Distiller configured
	EventConsolidationFailed   = "consolidation_failed"
	EventBankrupt              = "trust_bankruptcy"
	EventForgotten             = "forgotten"
)

// DreamEvent is one decision of the Dreamer with the potentials that caused it.
type DreamEvent struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Space  string    `json:"space"`
	Entity string    `json:"entity"`
	// ID is the entry decided on: the C entry of a bankruptcy, the forgotten entry.
	ID string `json:"id,omitempty"`
	// NewID is the entry appended: the C entry of a consolidation, the K entry of a
	// bankruptcy.
	NewID string `json:"new_id,omitempty"`
	Level string `json:"level,omitempty"`
	// Attention and Decision are the pair's live potentials when the pass decided.
	Attention float64 `json:"attention"`
	Decision  float64 `json:"decision"`
	// Rule is the threshold test that fired, with its numbers.
	Rule    string `json:"rule"`
	Applied bool   `json:"applied"`
	Error   string `json:"error,omitempty"`
}

// DreamReport sums up one pass. In a dry run the counts are what would have happened.
type DreamReport struct {
	At           time.Time `json:"at"`
	DryRun       bool      `json:"dry_run"`
	Pairs        int       `json:"pairs"`
	Entries      int       `json:"entries"`
	Consolidated int       `json:"consolidated"`
	Deferred     int       `json:"deferred"`
	Failed       int       `json:"failed"`
	Bankrupt     int       `json:"bankrupt"`
	Forgotten    int       `json:"forgotten"`
}
