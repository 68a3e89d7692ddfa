package roles

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/sandbox"
)

// WorkDir is what the evidence check needs of the work dir: whether a path, relative to
// it, is there. *sandbox.Sandbox has it. The check finds it on Config.Tools, so a toolbox
// that wraps a sandbox should pass Exists through; without it, the file half of the check
// is off (the tool-call half still runs).
type WorkDir interface {
	Exists(rel string) (bool, error)
}

// checkEvidence holds R4a's passing verdicts to what the subtask left behind, in code. A
// criterion judged pass is turned to fail (environmental, the reason as its evidence)
// when the subtask's tool calls show no successful action, or when a file the criterion
// names is absent from the work dir. Then the outcome fails, and R4b's fan-in gate sends
// the ReplanRequest: a model's word that it worked is no substitute for a trace of the
// work.
//
// It runs when R4a settles the subtask, not at R4b's fan-in: R4a holds the SubTask's
// plan (the tools it named), every attempt's tool calls and the toolbox, and a failure
// found here reaches the dispatcher in time to skip the steps that depend on the subtask,
// as any failure does. Subtasks of one sequence run in parallel, so a criterion should
// name files of its own subtask or of earlier steps.
func (p *Pipeline) checkEvidence(a contract.Assignment, out *contract.SubTaskOutcome) {
	wd, _ := p.cfg.Tools.(WorkDir)
	noAction := noSuccessfulAction(a.Tools, out.ToolCalls)
	var targets map[string]bool
	var flipped []contract.FailedCriterion
	var firstWhy string
	for i := range out.CriteriaVerdicts {
		v := &out.CriteriaVerdicts[i]
		if v.Failed() {
			continue
		}
		why := noAction
		if why == "" && wd != nil {
			if targets == nil {
				targets = plannedPaths(a.Targets, out.ToolCalls)
			}
			why = missingFile(wd, v.Criterion, targets)
		}
		if why == "" {
			continue
		}
		class := contract.FailureEnvironmental
		v.Verdict, v.FailureClass, v.Evidence = contract.VerdictFail, &class, why
		flipped = append(flipped, contract.FailedCriterion{Criterion: v.Criterion, FailureClass: class})
		if firstWhy == "" {
			firstWhy = why
		}
	}
	if len(flipped) == 0 {
		return
	}
	attempts := len(out.GapTrajectory)
	if attempts == 0 {
		out.GapTrajectory = append(out.GapTrajectory, contract.GapAttempt{Attempt: 1, FailedCriteria: []contract.FailedCriterion{}})
		attempts = 1
	}
	last := &out.GapTrajectory[attempts-1]
	last.FailedCriteria = append(last.FailedCriteria, flipped...)
	if out.Status != contract.OutcomeFailed {
		reason := fmt.Sprintf("%q failed (%s) after %d attempt(s): %s", flipped[0].Criterion, flipped[0].FailureClass, attempts, clip(firstWhy, 200))
		out.Status, out.FailureReason = contract.OutcomeFailed, &reason
	}
}

// noSuccessfulAction says why a subtask's tool calls are no evidence, or "" when they
// are: some call succeeded, or the plan named no tools and none was called (the answer
// is then judged on its text). Each call is read with sandbox.ReadEntry; a refusal whose
// reason outgrew the entry's evidence reads as a success, so the check errs toward
// leaving a verdict alone.
func noSuccessfulAction(tools, calls []string) string {
	if len(calls) == 0 {
		if len(tools) == 0 {
			return ""
		}
		return fmt.Sprintf("no successful action: the plan named %s, and no tool was called", strings.Join(tools, ", "))
	}
	var refused, failed int
	for _, c := range calls {
		switch sandbox.ReadEntry(c) {
		case sandbox.EntrySucceeded:
			return ""
		case sandbox.EntryRefused:
			refused++
		default:
			failed++
		}
	}
	return fmt.Sprintf("no successful action: every tool call was refused or failed (%d refused, %d failed)", refused, failed)
}

// missingFile says which file a criterion names that is not in the work dir, or "". A
// criterion about a file's absence (deleted, removed, moved, "does not exist", …) is left
// alone; so is a path the work dir cannot answer for.
func missingFile(wd WorkDir, criterion string, targets map[string]bool) string {
	if speaksOfAbsence(criterion) {
		return ""
	}
	for _, tok := range pathTokens(criterion) {
		if !checkable(wd, tok, targets) {
			continue
		}
		ok, err := wd.Exists(tok)
		if err != nil || ok {
			continue
		}
		what := "file"
		if strings.HasSuffix(tok, "/") {
			what = "directory"
		}
		return fmt.Sprintf("the %s %s that the criterion names does not exist in the work dir", what, tok)
	}
	return ""
}

// checkable tells whether a path-looking token is taken for a path of the work dir. Prose
// has path-looking words too, so: a token with a slash counts when it has a file
// extension, ends in "/" (a directory), or its first element is in the work dir ("and/or",
// "I/O" and "TCP/IP" are words); a bare name with an extension counts when the subtask's
// plan or tool calls name it ("Node.js" and "example.com" are words, "notes.txt" in
// `echo hi > notes.txt` is a file).
func checkable(wd WorkDir, tok string, targets map[string]bool) bool {
	trimmed := strings.TrimSuffix(tok, "/")
	first, _, slash := strings.Cut(trimmed, "/")
	switch {
	case !slash && !strings.HasSuffix(tok, "/"):
		return targets[path.Clean(tok)]
	case hasExtension(tok), strings.HasSuffix(tok, "/"):
		return true
	}
	ok, err := wd.Exists(first)
	return err == nil && ok
}

// plannedPaths is the set of path tokens in the subtask's plan targets and in the targets
// of its tool calls, cleaned.
func plannedPaths(targets, calls []string) map[string]bool {
	set := map[string]bool{}
	add := func(s string) {
		for _, tok := range pathTokens(s) {
			set[path.Clean(tok)] = true
		}
	}
	for _, t := range targets {
		add(t)
	}
	for _, c := range calls {
		if e, ok := contract.ParseToolCall(c); ok {
			add(e.Target)
		}
	}
	return set
}

// pathTokens lists the path-looking tokens of a text, in order, without repeats: runs of
// letters, digits and "._-/+@" that contain a slash or end in a file extension, with
// trailing dots (a sentence's end) cut. Absolute paths, "~" paths, URLs (whose
// "//host/…" reads as absolute), tokens with ".." and abbreviations such as "e.g." are
// left out: only paths inside the work dir are checked.
func pathTokens(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return !isPathRune(r) }) {
		tok = strings.TrimRight(tok, ".")
		switch {
		case tok == "", strings.HasPrefix(tok, "/"), strings.HasPrefix(tok, "~"), hasDotDotSegment(tok), isAbbreviation(tok):
			continue
		case !strings.Contains(tok, "/") && !hasExtension(tok):
			continue
		case path.Clean(tok) == ".", seen[tok]:
			continue
		}
		seen[tok] = true
		out = append(out, tok)
	}
	return out
}

func isPathRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-/+@~", r)
}

func hasDotDotSegment(tok string) bool {
	for _, seg := range strings.Split(tok, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// hasExtension tells whether a token's last element ends in ".ext": one to ten ASCII
// letters and digits, the first a letter (so "3.14" and "v1.2" have none).
func hasExtension(tok string) bool {
	last := tok[strings.LastIndexByte(tok, '/')+1:]
	dot := strings.LastIndexByte(last, '.')
	if dot < 0 || dot == len(last)-1 {
		return false
	}
	ext := last[dot+1:]
	if len(ext) > 10 || !isASCIILetter(ext[0]) {
		return false
	}
	for i := range len(ext) {
		if !isASCIILetter(ext[i]) && (ext[i] < '0' || ext[i] > '9') {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isAbbreviation tells whether a token is single letters joined by dots: "e.g", "i.e".
func isAbbreviation(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len([]rune(p)) != 1 || !unicode.IsLetter([]rune(p)[0]) {
			return false
		}
	}
	return true
}

// absenceWords mark a criterion about a file being gone; a missing file then satisfies it.
var absenceWords = map[string]bool{
	"delete": true, "deleted": true, "deletes": true, "deleting": true, "deletion": true,
	"remove": true, "removed": true, "removes": true, "removing": true, "removal": true,
	"rename": true, "renamed": true, "renames": true, "move": true, "moved": true, "moves": true,
	"absent": true, "missing": true, "gone": true, "nonexistent": true, "unlink": true, "unlinked": true,
	"purge": true, "purged": true, "clean": true, "cleaned": true, "erase": true, "erased": true,
}

// negatedPresence are the words that, after "not", "no" or "never" within two words,
// speak of absence: "does not exist", "is no longer there", "was not created".
var negatedPresence = map[string]bool{
	"exist": true, "exists": true, "present": true, "created": true, "written": true, "there": true,
	"remain": true, "remains": true, "kept": true, "longer": true, "file": true, "files": true,
}

func speaksOfAbsence(criterion string) bool {
	text := strings.ReplaceAll(strings.ToLower(criterion), "n't", " not")
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range words {
		if absenceWords[w] {
			return true
		}
		if w != "not" && w != "no" && w != "never" {
			continue
		}
		for _, next := range words[i+1 : min(i+3, len(words))] {
			if negatedPresence[next] {
				return true
			}
		}
	}
	return false
}
