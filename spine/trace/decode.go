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
	if decode, ok := DecodeBodyKinds[kind]; ok {
		return decode(content)
	}
	if !json.Valid(content) {
		return nil, fmt.Errorf("invalid JSON")
	}
	return json.RawMessage(content), nil
}

// DecodeBodyKinds is every kind DecodeBody gives a type, with the decoder of its body.
var DecodeBodyKinds = map[string]func(content []byte) (any, error){
	KindHeader: decodeAs[Header], KindFactAsserted: decodeAs[FactChange], KindFactUpdated: decodeAs[FactChange],
	KindFactRetracted: decodeAs[FactChange], KindConflictSet: decodeAs[ConflictSet], KindRuleFired: decodeAs[RuleFired],
	KindRuleError: decodeAs[RuleError], KindTransition: decodeAs[Transition], KindEffectorCall: decodeAs[EffectorCall],
	KindEffectorResult: decodeAs[EffectorResult], KindHalt: decodeAs[Halt], KindRulesReloaded: decodeAs[Reload],
	KindRulesReloadFailed: decodeAs[Reload], KindEmitError: decodeAs[EmitError], KindExchange: decodeAs[Exchange],
	KindMessage: decodeAs[Message], KindAudit: decodeAs[Audit], KindMemoryLost: decodeAs[MemoryLost],
	KindSignature: decodeAs[Signature], KindResumed: decodeAs[Resumed],
}

func decodeAs[T any](content []byte) (any, error) {
	var v T
	if err := json.Unmarshal(content, &v); err != nil {
		return nil, err
	}
	return v, nil
}
