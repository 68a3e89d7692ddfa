package roles

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// Marks of a part of a conversation replaced by its size: a tool output (text) and a
// tool call's arguments (JSON, so that the conversation can be sent again).
const (
	elidedOutputMark    = "[elided: "
	omittedArgumentMark = `{"omitted":"`
)

// fitConversation keeps an executor's request within contract.MaxModelRequest bytes as
// journalled, so that the request and the largest answer fit one trace line together.
// While it is over, the oldest tool output still whole, then the oldest tool call's
// arguments, is replaced by a note naming its size; the system prompt, the user turn and
// the model's own text are kept. It reports how many parts it elided.
func fitConversation(req *contract.ModelRequest) int {
	total := encodedLen(req)
	elided := 0
	for i := 0; i < len(req.Messages) && total > contract.MaxModelRequest; i++ {
		if m := &req.Messages[i]; m.Role == llm.RoleTool && !strings.HasPrefix(m.Content, elidedOutputMark) {
			before := encodedLen(m.Content)
			m.Content = fmt.Sprintf("%s%d bytes of output, to keep the conversation within its size limit]", elidedOutputMark, len(m.Content))
			total -= before - encodedLen(m.Content)
			elided++
		}
	}
	for i := 0; i < len(req.Messages) && total > contract.MaxModelRequest; i++ {
		calls := req.Messages[i].ToolCalls
		for k := 0; k < len(calls) && total > contract.MaxModelRequest; k++ {
			if args := calls[k].Arguments; !strings.HasPrefix(args, omittedArgumentMark) {
				calls[k].Arguments = fmt.Sprintf(`%sarguments of %d bytes, elided to keep the conversation within its size limit"}`, omittedArgumentMark, len(args))
				total -= encodedLen(args) - encodedLen(calls[k].Arguments)
				elided++
			}
		}
	}
	return elided
}

// omittedArguments stands in for a tool call's arguments over the size limit, naming
// only their size.
func omittedArguments(size int) string {
	return fmt.Sprintf(`%sarguments of %d bytes, over the %d-byte limit of a tool call"}`, omittedArgumentMark, size, contract.MaxToolArguments)
}

// encodedLen is the length of v's JSON encoding.
func encodedLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}
