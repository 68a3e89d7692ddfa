//go:build !linux

package sandbox

import "context"

// Bubblewrap needs Linux namespaces; elsewhere NewBubblewrap says so.
type Bubblewrap struct{}

var _ Jail = (*Bubblewrap)(nil)

// NewBubblewrap reports that this system cannot isolate tools.
func NewBubblewrap(BubblewrapOptions) (*Bubblewrap, error) {
	return nil, &UnavailableError{Missing: []string{"bubblewrap sandboxes need Linux namespaces"},
		Fix: "run the spine on Linux, or pass --no-sandbox to run tools unconfined"}
}

// Run implements Jail; it is never reached, as NewBubblewrap fails.
func (*Bubblewrap) Run(context.Context, Process) (RunReport, error) {
	return RunReport{}, ErrNoIsolation
}

// Describe implements Jail.
func (*Bubblewrap) Describe() Isolation { return Isolation{Mechanism: MechanismNone} }

// Start implements Starter; it is never reached, as NewBubblewrap fails.
func (*Bubblewrap) Start(context.Context, Program) (*Running, error) { return nil, ErrNoIsolation }
