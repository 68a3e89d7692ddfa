package roles

import "errors"

// ToolTargets is what a toolbox offering tools beyond the sandbox's (an MCP toolbox)
// tells the pipeline: the target of a call of one of its tools, for the MUST NOT set,
// memory's pairs and the evidence entry. ok is false for a tool it does not know.
type ToolTargets interface {
	ToolTarget(name, args string) (target string, ok bool)
}

// faultKinded is a tool error that is a fault of the machinery (an MCP server gone):
// the attempt ends, and the rules decide what follows.
type faultKinded interface {
	error
	FaultKind() string
}

// toolFault is err as a fault of the machinery, or nil.
func toolFault(err error) faultKinded {
	var f faultKinded
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// callTarget is a tool call's target: the toolbox's word for its own tools, else
// targetOf's.
func (p *Pipeline) callTarget(tool, args string) string {
	if tt, ok := p.cfg.Tools.(ToolTargets); ok {
		if t, ok := tt.ToolTarget(tool, args); ok {
			return t
		}
	}
	return targetOf(tool, args)
}
