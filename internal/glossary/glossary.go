// Package glossary owns the project's words a newcomer meets before their explanation:
// one list that `spine explain` prints and that the README's glossary is generated from
// (a test keeps the two equal). It holds text only: it must not reach into the packages
// whose terms it explains.
package glossary

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Term is one entry: its name, the other spellings that find it, and what it means.
type Term struct {
	Name    string
	Aliases []string
	Text    string
}

// Terms is the glossary, in reading order: the loss signals, the roles, then the words
// of the rules and the engine.
var Terms = []Term{
	{"D", []string{"distance"}, "Distance from the goal, 0–1: the weighted share of the success criteria that failed this round (R4a's and R4b's verdicts). 0 means every criterion passed."},
	{"P", []string{"logical share"}, "Of the failed criteria, the share that failed for a logical reason (a wrong approach) rather than an environmental one (a missing file, a refused command); 0 when nothing failed."},
	{"Ω", []string{"omega", "budget"}, "Resource cost so far, 0–1: replans and elapsed time against their budgets (w1·replans/max_replans + w2·elapsed/time_budget_ms). At Ω ≥ θ the task is abandoned."},
	{"L", []string{"loss"}, "The loss GGS minimises: L = α·D + β·(1−Ω)·P + λ·Ω."},
	{"∇L", []string{"grad", "gradient"}, "The change of the loss since the last round (L − L_prev, 0 in the first round). ↓ improving, ↑ worsening, → not moving (|∇L| below ε)."},
	{"macro-states", []string{"directive", "directives", "macro-state"}, "What GGS decides each round: refine, change_path, change_approach or break_symmetry (plan again, in a PlanDirective to R2), or accept, success or abandon (end the task, in a FinalResult). retry runs a round again after a fault of the machinery."},
	{"Law 2", []string{"law2", "law2_kill", "kill-switch"}, "The kill-switch: after law2_kill consecutive rounds with ∇L > ε (the loss worsening) the task is abandoned, whatever the budget left."},
	{"GGS", []string{"Goal Gradient Solver"}, "The Goal Gradient Solver (role R7): turns each round's report into the loss signals and, by the rules of rules/ggs.yaml, into the round's directive."},
	{"R1", []string{"Perceiver"}, "The Perceiver: turns the task's free text into a TaskSpec (intent, constraints, questions)."},
	{"R2", []string{"Planner"}, "The Planner: splits the task into subtasks with success criteria, tools and targets, honouring GGS's PlanDirective; writes the graceful failure when a task is abandoned."},
	{"R3", []string{"Executor", "Effector Agent"}, "The Executor: does one subtask with tools (files, shell, HTTP, MCP servers), sandboxed with bubblewrap."},
	{"R4a", []string{"Agent Validator"}, "The Agent Validator: judges each subtask's result against its criteria, criterion by criterion, and sends R3 back to correct it a few times (the fast loop)."},
	{"R4b", []string{"Meta-Validator"}, "The Meta-Validator: waits for every subtask (the fan-in gate), merges the results, checks them against the task's criteria and reports to GGS: an OutcomeSummary or a ReplanRequest."},
	{"R5", []string{"Shared Memory", "MKCT"}, "Shared Memory: the MKCT store of Megrams on goleveldb, read by R2 before planning; GGS is its only writer."},
	{"R6", []string{"Auditor"}, "The Auditor: reads every message and reports anomalies (thrashing, excessive retries, incomplete fan-in) as audit lines; it can instruct nothing."},
	{"R7", nil, "GGS, the Goal Gradient Solver: the controller of the medium loop (see GGS)."},
	{"Megram", []string{"megrams"}, "One atomic memory record GGS writes to R5: a tag (a tool and target, or a task's outcome), a state, and f (strength), σ (sign: +1 worked, −1 to avoid) and k (decay per day)."},
	{"PlanDirective", nil, "GGS's message to R2 for the next round: the directive, the loss, the tools and targets now blocked, and why."},
	{"FinalResult", nil, "GGS's last message of a task, to the user: accept, success or abandon, the loss, a summary, the reason when a fault ended it, and R2's graceful failure when abandoned."},
	{"fault", []string{"faults", "fault of the machinery"}, "A failure of the machinery rather than of the task (a model endpoint down, a refused key, an answer that broke its contract): never a verdict, it does not enter D or P; the rules retry the round or abandon with the fault as the reason."},
	{"seed", []string{"seeds"}, "The design documents this project was built from (seed 000 specifies GGS and the roles); in a rule run, also what the observe state judges before the first construct exists (a scenario's seed: round)."},
	{"construct", []string{"constructs", "Mint"}, "Whatever the act state's effector made (Mint), opaque to the spine: a plan, a patch, a candidate. The Gate judges it."},
	{"gate signals", []string{"Gate", "signals"}, "The numbers an effector's Gate (or the Observer) returns on a construct, asserted as the signals fact that the rules match on; a designed scenario scripts them round by round."},
	{"OBSERVE_CONTRACT", []string{"Observer", "observe"}, "The seed's contract for the observe state: an effector that is an engine.Observer judges the current construct (or the seed) at the start of every iteration, so each round starts from its verdict."},
	{"trace", []string{"replay"}, "The append-only, hash-chained JSONL record of a run: every fact, rule cycle, message and effector call. spine replay --check runs it again from the recording and must write the same bytes."},
}

// Lookup finds a term by its name or an alias, ignoring case.
func Lookup(name string) (Term, bool) {
	for _, t := range Terms {
		if strings.EqualFold(t.Name, name) || slices.ContainsFunc(t.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			return t, true
		}
	}
	return Term{}, false
}

// WriteList writes every term, one line each: its name and its text's first sentence.
func WriteList(w io.Writer) {
	for _, t := range Terms {
		fmt.Fprintf(w, "%-18s %s\n", t.Name, firstSentence(t.Text))
	}
}

// firstSentence is text up to its first ". ", for the list.
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}

// Explain writes the term name finds (Lookup) with its other spellings. A name that finds
// none is an error that names the terms near it (Near).
func Explain(w io.Writer, name string) error {
	t, ok := Lookup(name)
	if !ok {
		msg := fmt.Sprintf("no term %q", name)
		if near := Near(name); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return errors.New(msg)
	}
	fmt.Fprintf(w, "%s — %s\n", t.Name, t.Text)
	if len(t.Aliases) > 0 {
		fmt.Fprintf(w, "(also: %s)\n", strings.Join(t.Aliases, ", "))
	}
	return nil
}

// Near lists the terms whose name or alias is close to name (a small edit distance, or
// one contains the other), best first, at most three.
func Near(name string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	q := strings.ToLower(name)
	for _, t := range Terms {
		best := -1
		for _, s := range append([]string{t.Name}, t.Aliases...) {
			s = strings.ToLower(s)
			d := distance(q, s)
			if len(q) >= 3 && (strings.Contains(s, q) || strings.Contains(q, s) && len(s) >= 3) {
				d = min(d, 1)
			}
			if best < 0 || d < best {
				best = d
			}
		}
		limit := 1 // a short name is near only one edit away
		if n := len([]rune(q)); n > 3 {
			limit = max(2, n/3)
		}
		if best <= limit {
			cs = append(cs, cand{t.Name, best})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// Markdown is the README's glossary: one line a term.
func Markdown() string {
	var b strings.Builder
	for _, t := range Terms {
		fmt.Fprintf(&b, "- **%s** — %s\n", t.Name, t.Text)
	}
	return b.String()
}

// README markers: the glossary between them is Markdown's output.
const (
	Begin = "<!-- glossary: generated from internal/glossary; go test ./internal/glossary -rewrite -->\n"
	End   = "<!-- end of glossary -->\n"
)
