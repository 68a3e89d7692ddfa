package taskrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/distill"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
	"github.com/agentspine/spine/memory"
)

// memoryCalibrator asks memory about what a plan can touch and words the answer for the
// planner. The intent's pair and every C entry become text for the prompt; the verdicts
// on a tool (tool:<name> × env:local) or a tool on a target (tool:<name> ×
// path:<target>) become roles.Verdicts, which the plan validator and the executor
// enforce, each with a line saying how the pair fared.
type memoryCalibrator struct{ r memory.Reader }

var _ roles.Calibrator = memoryCalibrator{}

func (m memoryCalibrator) Calibrate(ctx context.Context, q contract.MemoryQuery) (roles.Calibration, error) {
	var pairs []memory.Pair
	if q.Intent != "" {
		// The whole intent's tag when memory knows it, else the seed's three-word tag.
		space, err := memory.ReadIntentSpace(ctx, m.r, q.Intent)
		if err != nil {
			return roles.Calibration{}, err
		}
		pairs = append(pairs, memory.Pair{Space: space, Entity: memory.EntityLocal})
	}
	for _, t := range q.Tools {
		pairs = append(pairs, memory.ToolPair(t))
	}
	for _, tt := range q.Targets {
		pairs = append(pairs, memory.TargetPair(tt.Tool, tt.Target))
	}
	cal, err := memory.Calibrate(ctx, m.r, pairs)
	if err != nil {
		return roles.Calibration{}, err
	}
	out := roles.Calibration{Avoid: []string{}, Exploit: []string{}, Caution: []string{}}
	for _, set := range []struct {
		es   []memory.CalibrationEntry
		text *[]string
	}{{cal.MustNot, &out.Avoid}, {cal.ShouldPrefer, &out.Exploit}, {cal.Caution, &out.Caution}} {
		for _, e := range set.es {
			tool, target, onTool := toolOf(e)
			switch {
			case e.Source == memory.SourceSOP:
				*set.text = append(*set.text, sopLine(e))
			case onTool:
				out.Verdicts = append(out.Verdicts, roles.Verdict{Action: e.Action, Tool: tool, Target: target,
					Pair: memory.Pair{Space: e.Space, Entity: e.Entity}.String(), Decision: e.Decision, Attention: e.Attention,
					Text: faredLine(e)})
			default:
				*set.text = append(*set.text, faredLine(e))
			}
		}
	}
	return out, nil
}

// toolOf reads the tool and target of an entry's pair: (tool:<name>, env:local) is the
// tool as a whole, (tool:<name>, path:<target>) the tool on a target.
func toolOf(e memory.CalibrationEntry) (tool, target string, ok bool) {
	tool, ok = strings.CutPrefix(e.Space, memory.SpaceToolPrefix)
	if !ok || tool == "" {
		return "", "", false
	}
	if e.Entity == memory.EntityLocal {
		return tool, "", true
	}
	target, ok = strings.CutPrefix(e.Entity, memory.EntityPathPrefix)
	return tool, target, ok && target != ""
}

// subject names what an entry is about: "read_file on config/service.yaml", "the tool
// shell", "tasks like this one (intent:deploy_the_service)".
func subject(e memory.CalibrationEntry) string {
	switch tool, target, ok := toolOf(e); {
	case ok && target != "":
		return tool + " on " + target
	case ok:
		return "the tool " + tool
	case strings.HasPrefix(e.Space, memory.SpaceIntentFullPrefix) && e.Entity == memory.EntityLocal:
		return "this same task (" + e.Space + ")"
	case strings.HasPrefix(e.Space, memory.SpaceIntentPrefix) && e.Entity == memory.EntityLocal:
		return "tasks like this one (" + e.Space + ")"
	default:
		return memory.Pair{Space: e.Space, Entity: e.Entity}.String()
	}
}

var verdictWord = map[string]string{contract.ActionAvoid: "avoid", contract.ActionExploit: "prefer", contract.ActionCaution: "caution"}

// faredLine words a potentials verdict: "read_file on config/service.yaml: failed in 3
// earlier tasks (change_approach), M_dec −2.55 → avoid".
func faredLine(e memory.CalibrationEntry) string {
	var parts []string
	for _, c := range []struct {
		n    int
		verb string
	}{{e.Failed, "failed"}, {e.Worked, "worked"}, {e.Neutral, "went nowhere"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d", c.verb, c.n))
		}
	}
	how := "judged by memory"
	if len(parts) > 0 {
		how = strings.Join(parts, ", ") + " earlier task"
		if e.Failed+e.Worked+e.Neutral > 1 {
			how += "s"
		}
	}
	if len(e.States) > 0 {
		var st []string
		for _, s := range e.States {
			if s.N > 1 && len(e.States) > 1 {
				st = append(st, fmt.Sprintf("%s ×%d", s.State, s.N))
			} else {
				st = append(st, s.State)
			}
		}
		if n := e.Failed + e.Worked + e.Neutral; e.StatesOf < n {
			st = append(st, fmt.Sprintf("states of %d of the %d", e.StatesOf, n))
		}
		how += " (" + strings.Join(st, ", ") + ")"
	}
	return fmt.Sprintf("%s: %s, M_dec %s → %s", subject(e), how, signed(e.Decision), verdictWord[e.Action])
}

// sopLine words a consolidated C entry: what worked or failed, and where it came from.
func sopLine(e memory.CalibrationEntry) string {
	kind := "consolidated"
	switch {
	case e.Sigma < 0:
		kind = "what failed before, consolidated"
	case e.Sigma > 0:
		kind = "what worked before, consolidated"
	}
	return fmt.Sprintf("%s (%s from %s): %s", subject(e), kind, memory.Pair{Space: e.Space, Entity: e.Entity}, e.Content)
}

func signed(x float64) string {
	return strings.Replace(fmt.Sprintf("%+.2f", x), "-", "−", 1)
}

// Caution policies of a run with no one to ask (Config.CautionPolicy).
const (
	CautionRefuse = "refuse" // the default: refuse the call, which R4a and GGS then see
	CautionAllow  = "allow"  // make the call
	CautionLog    = "log"    // make the call and warn that memory advised caution
)

// CheckCautionPolicy says whether policy is one of the caution policies ("" is the rule
// set's), for a command line to refuse a wrong one before a run starts.
func CheckCautionPolicy(policy string) error {
	switch policy {
	case "", CautionRefuse, CautionAllow, CautionLog:
		return nil
	}
	return fmt.Errorf("%q: expected refuse, allow or log", policy)
}

// cautionConfirmer is the Confirmer of memory's Caution verdicts when no person is at a
// terminal, by policy.
func cautionConfirmer(policy string, warn func(string)) (sandbox.Confirmer, error) {
	switch policy {
	case "", CautionRefuse:
		return sandbox.RefuseAll{}, nil
	case CautionAllow:
		return sandbox.ConfirmFunc(func(context.Context, sandbox.Confirmation) (bool, error) { return true, nil }), nil
	case CautionLog:
		return sandbox.ConfirmFunc(func(_ context.Context, c sandbox.Confirmation) (bool, error) {
			if warn != nil {
				warn(fmt.Sprintf("made the call %s %s, though %s", c.Tool, c.Command, strings.Join(c.Reasons, "; ")))
			}
			return true, nil
		}), nil
	}
	return nil, fmt.Errorf("caution policy %w", CheckCautionPolicy(policy))
}

// NewDistiller is the Dreamer's distiller for a model configuration: the planner's (R2)
// model behind the configuration's secret scrubber, every exchange journalled to journal
// so that `spine memory dream --replay` can redo the pass without the model. chat is the
// endpoint to call; nil builds it from cfg.
func NewDistiller(cfg llm.Config, chat llm.ChatModel, journal io.Writer) (memory.Distiller, error) {
	return newDistiller(cfg, runScrubber(cfg, os.Environ()), chat, journal)
}

func newDistiller(cfg llm.Config, scrub *secrets.Scrubber, chat llm.ChatModel, journal io.Writer) (memory.Distiller, error) {
	if chat == nil {
		var err error
		if chat, err = llm.NewOpenAIModel(cfg.OpenAIOptions()); err != nil {
			return nil, err
		}
	}
	planner, err := cfg.For(llm.R2)
	if err != nil {
		return nil, err
	}
	return distill.NewRecorder(distill.Model{Chat: llm.ScrubModel(chat, scrub), Name: planner.Model}, journal), nil
}

// NewJournalFile is a journal at path, created on its first write (never over an
// existing file), so that a pass which distils nothing leaves no file behind.
func NewJournalFile(path string) io.WriteCloser { return &journalFile{path: path} }

// journalFile is a journal file created on its first write, so a pass that distils nothing
// leaves no file behind. It never overwrites an existing file.
type journalFile struct {
	path string
	f    *os.File
}

func (l *journalFile) Write(p []byte) (int, error) {
	if l.f == nil {
		if l.path == "" {
			return 0, errors.New("no journal path")
		}
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.Write(p)
}

func (l *journalFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// DreamOutcome is the Dreamer's pass after a task: what it did, the distiller's journal
// (empty when it distilled nothing) and its error.
type DreamOutcome struct {
	Report  memory.DreamReport
	Journal string
	Err     error
}

// dreamAfterTask runs the Dreamer's pass once the task has its FinalResult: the seed's
// trigger, off the hot path, since the run is over. The write queue is flushed first, so
// the pass sees GGS's last Megrams of the task.
func dreamAfterTask(ctx context.Context, mem *memory.Service, journal *journalFile) *DreamOutcome {
	var rep memory.DreamReport
	err := flushForDream(ctx, mem)
	if err == nil {
		rep, err = mem.DreamOnce(ctx)
	}
	if cerr := journal.Close(); err == nil {
		err = cerr
	}
	out := &DreamOutcome{Report: rep, Err: err}
	if journal.f != nil {
		out.Journal = journal.path
	}
	return out
}
