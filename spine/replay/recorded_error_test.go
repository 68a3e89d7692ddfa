package replay

import (
	"context"
	"errors"
	"testing"
)

func TestRecordedErrorKeepsContextErrors(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"context canceled", context.Canceled},
		{"round 2: context canceled", context.Canceled},
		{"call: context deadline exceeded", context.DeadlineExceeded},
		{"connection refused", nil},
	} {
		err := recordedError(tc.msg)
		if err.Error() != tc.msg {
			t.Errorf("%q: text became %q", tc.msg, err)
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%q: not recognised as %v", tc.msg, tc.want)
		}
		if tc.want == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			t.Errorf("%q: taken for a context error", tc.msg)
		}
	}
}
