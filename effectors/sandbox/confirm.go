package sandbox

import "context"

// Confirmation is what a Confirmer is asked about.
type Confirmation struct {
	Tool    string
	Command string
	Reasons []string // why the command looks destructive
}

// Confirmer decides whether a destructive command may run. An error counts as a refusal.
type Confirmer interface {
	Confirm(ctx context.Context, c Confirmation) (bool, error)
}

// RefuseAll is the Confirmer of non-interactive runs: it refuses every destructive
// command.
type RefuseAll struct{}

var _ Confirmer = RefuseAll{}

// Confirm refuses.
func (RefuseAll) Confirm(context.Context, Confirmation) (bool, error) { return false, nil }

// ConfirmFunc adapts a function (a terminal prompt, a test's script) to Confirmer.
type ConfirmFunc func(ctx context.Context, c Confirmation) (bool, error)

var _ Confirmer = ConfirmFunc(nil)

// Confirm calls f.
func (f ConfirmFunc) Confirm(ctx context.Context, c Confirmation) (bool, error) { return f(ctx, c) }
