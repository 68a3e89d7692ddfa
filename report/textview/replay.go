package textview

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

// Replay prints what replaying one trace found (replay.Check): an incomplete recording
// on errw, then one line with the verdict (two when a replay that differs also failed).
func Replay(out, errw io.Writer, r replay.Outcome) {
	if r.Incomplete != "" {
		fmt.Fprintf(errw, "%s: %s\n", r.Path, r.Incomplete)
	}
	var ce *trace.ChainError
	if r.ChainErr != nil && (r.Failed == nil || errors.As(r.ChainErr, &ce)) { // else the reader's error, in Failed
		termtext.Printf(out, "%s: hash chain broken at %v", r.Path, r.ChainErr)
	}
	if r.OtherRules != "" {
		fmt.Fprintf(out, "%s: %s\n", r.Path, r.OtherRules)
	}
	if r.SigErr != nil {
		fmt.Fprintf(out, "%s: %v\n", r.Path, r.SigErr)
	} else if note := signatureText(r.Signature, r.Verified); note != "" {
		fmt.Fprintf(out, "%s: %s\n", r.Path, note)
	}
	var unusable *replay.RecordingError
	switch {
	case r.Failed != nil:
		// No replay ran: an error, on stderr. A recording's values are quoted as
		// excerpts: a line may be megabytes.
		// The reader's errors mostly name the file already: it is said once, headed
		// as every command's errors are.
		msg := linecap.BoundQuotes(r.Failed.Error())
		if !strings.HasPrefix(msg, r.Path+":") {
			msg = r.Path + ": " + msg
		}
		fmt.Fprintf(errw, "spine replay: %s\n", msg)
	case r.Diff != nil:
		termtext.Printf(out, "%s: differs from the recording at %s", r.Path, r.Diff)
		if r.ReplayErr != nil {
			fmt.Fprintf(out, "%s: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
		}
	case r.ReplayErr != nil && r.Incomplete != "" && errors.Is(r.ReplayErr, replay.ErrRecordingEnded):
		// What the recording holds was reproduced, but the run could not be: it needed
		// what was lost with the cut.
		fmt.Fprintf(out, "%s: incomplete: the recording ends before the run did, and the replay needed more than the %d complete lines: %v\n", r.Path, r.Lines, r.ReplayErr)
	case errors.As(r.ReplayErr, &unusable):
		// The recording could not be used: an error about the input, on stderr.
		fmt.Fprintf(errw, "%s: recording unusable: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
	case r.ReplayErr != nil:
		fmt.Fprintf(out, "%s: %s\n", r.Path, linecap.BoundQuotes(r.ReplayErr.Error()))
	case r.Compare && r.Incomplete != "":
		// The recorded run's end was in the lost line, so no outcome is claimed.
		note := r.ChainNote()
		if r.ChainErr != nil {
			note = "but the recording's chain is broken"
		}
		termtext.Printf(out, "%s: incomplete: the recording ends before the run did; %d complete lines reproduced (%s)", r.Path, r.Lines, note)
	case r.Compare && r.ChainErr != nil:
		termtext.Printf(out, "%s: the replay is identical to the recording (%d lines), but the recording's chain is broken · %s", r.Path, r.Lines, r.Ending())
	case r.Compare:
		termtext.Printf(out, "%s: identical to the recording (%d lines, %s) · %s", r.Path, r.Lines, r.ChainNote(), r.Ending())
	case !r.Chain.Chained && r.ChainErr == nil:
		termtext.Printf(out, "%s: replayed · %s · %s", r.Path, r.ReplayedEnding(), r.Chain)
	default:
		termtext.Printf(out, "%s: replayed · %s", r.Path, r.ReplayedEnding())
	}
}

// SignatureNote says who signed a trace read whole: with keys, the signature they
// verified ("signed by SHA256:… (verified)") or the *trace.SignatureError of one they do
// not vouch for; without, who signed it, not verified; "" for an unsigned trace.
func SignatureNote(tf *trace.File, keys trace.KeyRing) (string, error) {
	if keys == nil {
		return signatureText(tf.Signature(), false), nil
	}
	rep, err := tf.VerifySignature(keys)
	if err != nil {
		return "", err
	}
	return signatureText(rep, true), nil
}

func signatureText(r trace.SignatureReport, verified bool) string {
	switch {
	case verified:
		return r.String() + " (verified)"
	case r.Signed:
		return r.String() + " (not verified: pass --verify-key)"
	}
	return ""
}
