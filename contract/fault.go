package contract

// Kinds of Fault.
const (
	// FaultModelUnavailable: a role's model endpoint did not answer through its retries
	// (HTTP errors, timeouts, dropped connections, a body that is not a response).
	FaultModelUnavailable = "model_unavailable"
	// FaultContractBroken: a role's model answered, but its answer broke the role's
	// contract again after the corrective turn.
	FaultContractBroken = "contract_broken"
	// FaultPlannerCornered: every plan R2 could make in a round broke the MUST NOT set.
	FaultPlannerCornered = "planner_cornered"
	// FaultResponseTooLarge: a role's model answered with more than MaxModelResponse
	// bytes; the answer was refused unread and journalled as its size.
	FaultResponseTooLarge = "response_too_large"
	// FaultToolUnavailable: a tool's server (an MCP server) could not be started, died or
	// broke its connection; R3's call did not reach a working tool.
	FaultToolUnavailable = "tool_unavailable"
	// FaultKeyRefused: a role's model endpoint refused the API key (HTTP 401 or 403).
	// The same key would be refused again, so no round is run again for it.
	FaultKeyRefused = "key_refused"

	// The run itself was stopped from outside the rules (Role FaultRoleSpine): the
	// engine's Interrupt reasons. None is a verdict on the task, and none can be tried
	// again.
	FaultCancelled      = "cancelled"       // the run was cancelled (Ctrl-C, a caller's context)
	FaultIterationBound = "iteration_bound" // the run reached its iteration bound
	FaultEffectorError  = "effector_error"  // an effector call failed outright
)

// FaultRoleSpine is the Role of a fault that stopped the run rather than one role.
const FaultRoleSpine = "spine"

// IsInterruption tells whether kind is one of the kinds that stop the run itself.
func IsInterruption(kind string) bool {
	switch kind {
	case FaultCancelled, FaultIterationBound, FaultEffectorError:
		return true
	}
	return false
}

// Fault is a failure of the machinery rather than of the task. It is never a criterion
// verdict: it does not enter D or P, and a plan that met a fault has not failed. The GGS
// rules decide what follows (retry the round, or abandon with the fault as the reason).
type Fault struct {
	Role   string `json:"role"`   // the role that could not do its job: R1 … R4b, or spine
	Kind   string `json:"kind"`   // one of the Fault… kinds
	Detail string `json:"detail"` // what happened, for people
}

// KeyRefusedAdvice is what a FaultKeyRefused tells the user to do.
const KeyRefusedAdvice = "the endpoint refused the key: check OPENAI_API_KEY (or the config's api_key_env)"

// Fatal tells whether trying the round again cannot help.
func (f Fault) Fatal() bool {
	return f.Kind == FaultPlannerCornered || f.Kind == FaultKeyRefused || IsInterruption(f.Kind)
}
