package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Consolidation kinds: what a C entry says about its tag pair.
const (
	KindBestPractice = "best_practice" // M_decision ≥ the best-practice threshold, σ = +1
	KindConstraint   = "constraint"    // M_decision ≤ the constraint threshold, σ = −1
)

// Distiller words a consolidation the Dreamer's rules have already decided. It is an
// effector: the production one calls a model, and its request and response are plain
// JSON so that the record/replay layer can journal the exchange. It decides nothing: its
// answer becomes the content of the new C entry, never whether there is one.
type Distiller interface {
	Distil(ctx context.Context, req DistilRequest) (DistilResponse, error)
}

// DistilRequest describes the tag pair to consolidate and its strongest evidence.
type DistilRequest struct {
	Kind      string           `json:"kind"` // KindBestPractice or KindConstraint
	Space     string           `json:"space"`
	Entity    string           `json:"entity"`
	Attention float64          `json:"attention"`
	Decision  float64          `json:"decision"`
	Evidence  []DistilEvidence `json:"evidence"`
}

// DistilEvidence is one M/K entry of the pair, heaviest first.
type DistilEvidence struct {
	ID      string  `json:"id"`
	State   string  `json:"state"`
	Content string  `json:"content"`
	F       float64 `json:"f"`
	Sigma   float64 `json:"sigma"`
	// Weight is the entry's live attention |f|·e^(−kΔt) when the pass ran.
	Weight float64 `json:"weight"`
}

// DistilResponse is the text of the new C entry.
type DistilResponse struct {
	Content string `json:"content"`
}

// TemplateDistillerForTests is a test double for the Distiller effector. It is not a
// model and distils nothing: it fills a fixed template with the request's kind, tags,
// potentials and the states of its evidence, so that tests of the Dreamer get a
// deterministic C entry without a model call.
type TemplateDistillerForTests struct{}

var _ Distiller = TemplateDistillerForTests{}

// Distil renders the template.
func (TemplateDistillerForTests) Distil(_ context.Context, req DistilRequest) (DistilResponse, error) {
	counts := map[string]int{}
	for _, e := range req.Evidence {
		counts[e.State]++
	}
	states := make([]string, 0, len(counts))
	for st := range counts {
		states = append(states, st)
	}
	sort.Strings(states)
	parts := make([]string, len(states))
	for i, st := range states {
		name := st
		if name == "" {
			name = "(none)"
		}
		parts[i] = fmt.Sprintf("%s×%d", name, counts[st])
	}
	return DistilResponse{Content: fmt.Sprintf("[template %s] %s @ %s (attention %.2f, decision %.2f; evidence %s)",
		req.Kind, req.Space, req.Entity, req.Attention, req.Decision, strings.Join(parts, ", "))}, nil
}
