package contract

// Tally counts the criteria an outcome's verdicts passed and returns the first that
// failed, nil when none did.
func (o *SubTaskOutcome) Tally() (passed int, firstFailed *CriterionVerdict) {
	for i, v := range o.CriteriaVerdicts {
		switch {
		case !v.Failed():
			passed++
		case firstFailed == nil:
			firstFailed = &o.CriteriaVerdicts[i]
		}
	}
	return passed, firstFailed
}
