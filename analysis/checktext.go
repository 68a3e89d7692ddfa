package analysis

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentspine/spine/spine/engine"
)

// WriteFileCheck checks the rule file at path (CheckFile) and writes what `spine check`
// prints of it: every load error, or the warnings, with Analyze the analysis, then a
// summary line. It reports whether the file passes (with strict, a warning or an
// analysis finding fails it); err is only a failure to write.
func WriteFileCheck(w io.Writer, path string, c FileCheck, strict bool) (ok bool, err error) {
	checked, err := CheckFile(path, c)
	var les engine.LoadErrors
	switch {
	case errors.As(err, &les) && !errors.As(err, new(*CompanionError)): // the rule file's own
		for _, e := range les {
			fmt.Fprintln(w, e.Error())
		}
		noun := "errors"
		if len(les) == 1 {
			noun = "error"
		}
		fmt.Fprintf(w, "%s: %d %s\n", path, len(les), noun)
		return false, nil
	case err != nil:
		fmt.Fprintln(w, err) // a finding of the check, on stdout with the others
		return false, nil
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
