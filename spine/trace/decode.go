package trace

import (
	"encoding/json"
	"fmt"
)

// DecodeBody decodes a line's content (the event's JSON object, envelope included) into
// the body type of kind: a Header for KindHeader, a FactChange for the fact kinds, and
// so on (see kinds.go). A kind this package does not know is returned as the line's
// JSON, a json.RawMessage sharing content's bytes.
func DecodeBody(kind string, content []byte) (any, error) {
	switch kind {
	case KindHeader:
		return decodeAs[Header](content)
	case KindFactAsserted, KindFactUpdated, KindFactRetracted:
		return decodeAs[FactChange](content)
	case KindConflictSet:
		return decodeAs[ConflictSet](content)
	case KindRuleFired:
		return decodeAs[RuleFired](content)
	case KindRuleError:
		return decodeAs[RuleError](content)
	case KindTransition:
		return decodeAs[Transition](content)
	case KindEffectorCall:
		return decodeAs[EffectorCall](content)
	case KindEffectorResult:
		return decodeAs[EffectorResult](content)
	case KindHalt:
		return decodeAs[Halt](content)
	case KindRulesReloaded, KindRulesReloadFailed:
		return decodeAs[Reload](content)
	case KindEmitError:
		return decodeAs[EmitError](content)
	case KindExchange:
		return decodeAs[Exchange](content)
	case KindMessage:
		return decodeAs[Message](content)
	case KindAudit:
		return decodeAs[Audit](content)
	}
	if !json.Valid(content) {
		return nil, fmt.Errorf("invalid JSON")
	}
	return json.RawMessage(content), nil
}

// DecodeBodyKinds is every kind DecodeBody gives a type, with a zero body of it.
var DecodeBodyKinds = map[string]any{
	KindHeader: Header{}, KindFactAsserted: FactChange{}, KindFactUpdated: FactChange{}, KindFactRetracted: FactChange{},
	KindConflictSet: ConflictSet{}, KindRuleFired: RuleFired{}, KindRuleError: RuleError{}, KindTransition: Transition{},
	KindEffectorCall: EffectorCall{}, KindEffectorResult: EffectorResult{}, KindHalt: Halt{},
	KindRulesReloaded: Reload{}, KindRulesReloadFailed: Reload{}, KindEmitError: EmitError{},
	KindExchange: Exchange{}, KindMessage: Message{}, KindAudit: Audit{},
}

func decodeAs[T any](content []byte) (any, error) {
	var v T
	if err := json.Unmarshal(content, &v); err != nil {
		return nil, err
	}
	return v, nil
}
