package report

import (
	"regexp"
	"strconv"
	"time"
)

// How the page writes times and ids, one rule each, so that every view of a run reads
// the same.

// human writes a duration for a reader: one decimal under a minute, in the unit that
// keeps the number under 1000 (0.4 ms, 1.1 ms, 250.0 ms, 2.3 s), then whole minutes and
// seconds (4 min 05 s), whole hours and minutes past an hour. A negative duration (a
// call that began before the trace's first event) has a minus sign.
func human(d time.Duration) string {
	switch {
	case d < 0:
		return "−" + human(-d)
	case d == 0:
		return "0 ms"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(float64(d)/float64(time.Second), 'f', 1, 64) + " s"
	}
	s := int64(d.Round(time.Second) / time.Second)
	m := s / 60
	if m < 60 {
		return strconv.FormatInt(m, 10) + " min " + pad2(s%60) + " s"
	}
	return strconv.FormatInt(m/60, 10) + " h " + pad2(m%60) + " min"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// humanMS is human for a whole number of milliseconds, as exchanges record them.
func humanMS(ms int64) string { return human(time.Duration(ms) * time.Millisecond) }

// longID is an id of 32 hex digits (a subtask's), on its own: not part of a longer run
// of letters and digits.
var longID = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

// shortIDs cuts every 32-hex id in s to its first 8 digits and an ellipsis; full is
// true when it cut one, and the caller then keeps s whole for a title attribute.
func shortIDs(s string) (short string, cut bool) {
	out := longID.ReplaceAllStringFunc(s, func(id string) string { return id[:8] + "…" })
	return out, out != s
}
