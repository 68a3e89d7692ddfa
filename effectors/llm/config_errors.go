package llm

import (
	"fmt"
	"strings"
	"time"
)

// SettingError is one configuration value that cannot be used, named where it was given:
// an environment variable, a key of the file at its position, or a flag.
type SettingError struct {
	Where    string // "spine.yaml:2:10" for a file key; "" for a variable or flag
	Name     string // SPINE_LLM_TIMEOUT, timeout, roles.R2.tier, --base-url
	Value    string // the value as given
	Got      string // instead of Value, when a file value is not text: "a list", "a mapping", "nothing"
	Expected string // "a positive integer, e.g. 4"
}

func (e *SettingError) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	if e.Got != "" {
		fmt.Fprintf(&b, "%s: expected %s, got %s", e.Name, e.Expected, e.Got)
	} else {
		fmt.Fprintf(&b, "%s=%q: expected %s", e.Name, e.Value, e.Expected)
	}
	return b.String()
}

// ValidationError is a configuration whose sources all read, but whose values do not
// make a usable whole: a role without a model, R4b below R2. LoadConfig returns it only
// after every layer was applied, so the Config beside it is complete; a caller may tell
// it from a bad value (a *SettingError or a file error), which it must report as it is.
type ValidationError struct{ Err error }

func (e *ValidationError) Error() string { return "llm config: " + e.Err.Error() }
func (e *ValidationError) Unwrap() error { return e.Err }

// What the configuration's values must look like, said the same way for every source.
const (
	expectURL         = "an absolute http(s) URL, e.g. http://localhost:11434/v1"
	expectAttempts    = "a positive integer, e.g. 4"
	expectText        = "a text value"
	expectTierName    = "a tier name that is not empty and not a number"
	expectTierList    = "a list of tier names, lowest first"
	expectRoleModel   = "a model name or {model: …, tier: …}"
	expectDurationPos = "a positive duration, e.g. 120s or 2m"
	expectDurationFmt = "a duration with a unit, e.g. 120s or 2m"
)

// parseTimeout reads a timeout; the expectation it fails with says what was wrong: a
// number without a unit, or a duration that is not positive.
func parseTimeout(v string) (time.Duration, string) {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, expectDurationFmt
	case d <= 0:
		return 0, expectDurationPos
	}
	return d, ""
}

// expectTier says what a tier may be, given the declared tier names.
func expectTier(names []string) string {
	if len(names) == 0 {
		return "a non-negative integer (no tier names are declared under tiers)"
	}
	return "a non-negative integer or one of [" + strings.Join(names, ", ") + "]"
}
