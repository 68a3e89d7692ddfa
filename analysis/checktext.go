package analysis

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentspine/spine/spine/ruleset"
)

// WriteFileCheck checks the rule file at path (CheckFile) and writes what `spine check`
// prints of it: the warnings, with Analyze the analysis, then a summary line, on w (the
// findings, the command's result); every load error and the count of them on errw. It
// reports whether the file passes (with strict, a warning or an analysis finding fails
// it); err is a rule file that cannot be read at all (it names the file), or a failure
// to write.
func WriteFileCheck(w, errw io.Writer, path string, c FileCheck, strict bool) (ok bool, err error) {
	checked, err := CheckFile(path, c)
	var les ruleset.LoadErrors
	switch {
	case errors.As(err, &les) && !errors.As(err, new(*CompanionError)): // the rule file's own
		for _, e := range les {
			fmt.Fprintln(errw, e.Error())
		}
		noun := "errors"
		if len(les) == 1 {
			noun = "error"
		}
		fmt.Fprintf(errw, "%s: %d %s\n", path, len(les), noun)
		return false, nil
	case errors.As(err, new(*CompanionError)):
		fmt.Fprintln(errw, err) // a domains or expectations file's errors, positioned
		return false, nil
	case err != nil:
		return false, err
	}
	for _, warning := range checked.Report.Warnings {
		fmt.Fprintln(w, warning)
	}
	ok = true
	if c.Analyze {
		if err := checked.Report.WriteText(w); err != nil {
			return false, err
		}
		ok = checked.CellsHold()
	}
	fmt.Fprintf(w, "%s: %s\n", path, checked.Summary(c.Analyze))
	return ok && !(strict && checked.Findings(c.Analyze) > 0), nil
}
