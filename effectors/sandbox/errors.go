package sandbox

import (
	"errors"
	"fmt"
)

// Kinds of refusal, for errors.Is.
var (
	ErrOutsideRoot = errors.New("outside the sandbox root")
	ErrSymlink     = errors.New("through a symlink")
	ErrDenied      = errors.New("command not allowed")
	ErrDestructive = errors.New("destructive command not confirmed")
	ErrUnparsable  = errors.New("command cannot be checked")
	ErrUnknownTool = errors.New("unknown tool")
	ErrNotRegular  = errors.New("not a regular file")
	ErrHardlink    = errors.New("a file with more than one link")
	ErrChanged     = errors.New("the path changed while being opened")
)

// RefusedError is a tool call that was not carried out because a rule forbids it.
type RefusedError struct {
	Tool   string
	Target string
	Kind   error // one of the Err… values above
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s %q refused: %s", e.Tool, e.Target, e.Reason)
}

// Unwrap gives the kind of refusal.
func (e *RefusedError) Unwrap() error { return e.Kind }

// ArgsError is a tool call whose arguments do not fit the tool's schema.
type ArgsError struct {
	Tool    string
	Field   string // "" when the arguments as a whole are wrong
	Problem string
}

func (e *ArgsError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: arguments: %s", e.Tool, e.Problem)
	}
	return fmt.Sprintf("%s: argument %q: %s", e.Tool, e.Field, e.Problem)
}
