package ggs

import (
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// MemoryWriter receives GGS's Megram writes. Write must not block: GGS fires and forgets.
type MemoryWriter interface {
	Write(contract.Megram)
}

// Quantize is GGS's quantization matrix: the strength f, valence σ and decay k of the
// Megram a macro-state writes. An unknown directive gives zeros.
func Quantize(directive string) (f, sigma, k float64) {
	switch directive {
	case contract.DirectiveAbandon:
		return 0.95, -1.0, 0.05
	case contract.DirectiveAccept:
		return 0.90, 1.0, 0.05
	case contract.DirectiveChangeApproach:
		return 0.85, -1.0, 0.05
	case contract.DirectiveSuccess:
		return 0.80, 1.0, 0.05
	case contract.DirectiveBreakSymmetry:
		return 0.75, 1.0, 0.05
	case contract.DirectiveChangePath:
		return 0.30, 0.0, 0.2
	case contract.DirectiveRefine:
		return 0.10, 0.5, 0.5
	}
	return 0, 0, 0
}

// megram is one write of a macro-state, quantized by Quantize.
func megram(directive, space, entity, content string, now time.Time, ids engine.IDSource) contract.Megram {
	f, sigma, k := Quantize(directive)
	return contract.Megram{
		ID: ids.NewID(), Level: contract.LevelM, CreatedAt: now, LastRecalledAt: now,
		Space: space, Entity: entity, Content: content, State: directive,
		F: f, Sigma: sigma, K: k,
	}
}
