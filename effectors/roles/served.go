package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentspine/spine/spine/replay"
)

// served asks the recording a resumed run is re-running, if any, for the exchange name
// with request before the pipeline makes it (a model call, a tool call, a question to
// the user). When the recording holds it, the recorded exchange is journalled as it is,
// its response decoded into into, and its recorded error returned as callErr: nothing
// is called. ok is false when the exchange is to be made live (no recording, or the
// first exchange the recording lacks, where the run goes live). err is a re-run that
// departed from the recording.
func served(ctx context.Context, rec recorder, name string, request, into any) (ok bool, callErr, err error) {
	x := replay.ExchangesFrom(ctx)
	if x == nil {
		return false, nil, nil
	}
	r, ok, err := x.Serve(name, request)
	if err != nil || !ok {
		return false, nil, err
	}
	if len(r.Response) > 0 && into != nil {
		if err := json.Unmarshal(r.Response, into); err != nil {
			return false, nil, fmt.Errorf("the recorded response of %s: %w", name, err)
		}
	}
	rec.exchange(replay.Journalled(r))
	if r.Error != "" {
		callErr = errors.New(r.Error)
	}
	return true, callErr, nil
}

// rerunning reports whether ctx belongs to an effector call re-run from a recording:
// its subtasks then run one at a time, in plan order, so that they ask for their
// recorded exchanges in the order the journal holds them.
func rerunning(ctx context.Context) bool { return replay.ExchangesFrom(ctx) != nil }
