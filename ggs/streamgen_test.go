package ggs

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

// writeStream is the flag of TestWriteStream: the file to write a generated stream to,
// so that another reader (scripts/ggs-floor.py) times the same bytes as the benchmark.
var writeStream = flag.String("ggs.stream", "", "write the generated `FILE` of BenchmarkGGSFilter and stop")

// benchTasks is the size of BenchmarkGGSFilter's stream: about 100 MB.
const (
	benchTasks = 9_600
	benchSeed  = 30
)

// TestWriteStream writes BenchmarkGGSFilter's stream to the file named by -ggs.stream:
//
//	go test ./ggs -run TestWriteStream -ggs.stream /tmp/ggs-stream.jsonl
func TestWriteStream(t *testing.T) {
	if *writeStream == "" {
		t.Skip("no -ggs.stream FILE")
	}
	f, err := os.Create(*writeStream)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	n, err := genStream(w, benchTasks, benchSeed)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d messages", *writeStream, n)
}

// genStream writes a stream of R4b reports, as the bus writes them, for tasks tasks of
// 1–6 rounds each, interleaved in an order fixed by seed. Reports are of the size a real
// round gives (about 2.3 KB): several subtasks with their verdicts, evidence, gap
// trajectories, tool calls and outputs of every JSON kind, text with escapes and
// non-ASCII. A task's last report is an OutcomeSummary one time in three. It returns the
// number of messages.
func genStream(w io.Writer, tasks int, seed uint64) (int, error) {
	g := &streamGen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	left := make([]int, tasks)
	pending := make([]int, tasks)
	for i := range left {
		left[i] = 1 + g.rng.IntN(6)
		pending[i] = i
	}
	n := 0
	for len(pending) > 0 {
		k := g.rng.IntN(len(pending))
		i := pending[k]
		left[i]--
		var v any
		typ := contract.TypeReplanRequest
		id := fmt.Sprintf("task-%05d", i)
		if left[i] == 0 {
			pending[k] = pending[len(pending)-1]
			pending = pending[:len(pending)-1]
		}
		if left[i] == 0 && g.rng.IntN(3) == 0 {
			typ, v = contract.TypeOutcomeSummary, g.outcome(id)
		} else {
			v = g.replan(id)
		}
		b, err := json.Marshal(struct {
			Type    string `json:"type"`
			Payload any    `json:"payload"`
		}{typ, v})
		if err != nil {
			return n, err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

type streamGen struct {
	rng *rand.Rand
}

var (
	genWords = strings.Fields(`the nginx error log is not where the plan looked; the service
		writes to /opt/nginx/logs and rotates daily, so the tail must follow the symlink.
		é → “quoted” <tag> & tab	done`)
	genTools   = []string{"shell", "read_file", "write_file", "http_get", "grep"}
	genClasses = []string{contract.FailureEnvironmental, contract.FailureLogical}
)

func (g *streamGen) text(words int) string {
	var b strings.Builder
	for i := 0; i < words; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(genWords[g.rng.IntN(len(genWords))])
	}
	return b.String()
}

func (g *streamGen) output() any {
	switch g.rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return g.text(12)
	case 2:
		return []any{float64(g.rng.IntN(1000)), g.rng.Float64() * 100, 1e21 * float64(1+g.rng.IntN(9)), true, nil, g.text(3)}
	default:
		return map[string]any{
			"stdout":    g.text(20),
			"exit_code": float64(g.rng.IntN(3)),
			"lines":     []any{g.text(5), g.text(5), g.text(5)},
			"ratio":     g.rng.Float64(),
			"meta":      map[string]any{"host": "web-" + strconv.Itoa(g.rng.IntN(9)), "ok": g.rng.IntN(2) == 0, "tiny": 1e-9 * g.rng.Float64()},
		}
	}
}

func (g *streamGen) verdict(fail bool) contract.CriterionVerdict {
	v := contract.CriterionVerdict{
		Criterion: "criterion " + strconv.Itoa(g.rng.IntN(4)),
		Mode:      []string{"", contract.ModeVerifiable, contract.ModePlausible}[g.rng.IntN(3)],
		Verdict:   contract.VerdictPass,
		Evidence:  g.text(18),
	}
	if fail {
		c := genClasses[g.rng.IntN(2)]
		v.Verdict, v.FailureClass = contract.VerdictFail, &c
	}
	return v
}

func (g *streamGen) subtask(task string, k int, matched bool) contract.SubTaskOutcome {
	o := contract.SubTaskOutcome{
		SubTaskID:    task + "/s" + strconv.Itoa(k),
		ParentTaskID: task,
		Status:       contract.OutcomeMatched,
		Output:       g.output(),
	}
	fail := !matched && g.rng.IntN(3) > 0
	if fail {
		o.Status = contract.OutcomeFailed
		r := g.text(8)
		o.FailureReason = &r
	}
	for i := 0; i < 1+g.rng.IntN(3); i++ {
		o.CriteriaVerdicts = append(o.CriteriaVerdicts, g.verdict(fail && i == 0))
	}
	for i := 0; i < g.rng.IntN(3); i++ {
		o.GapTrajectory = append(o.GapTrajectory, contract.GapAttempt{Attempt: i + 1, FailedCriteria: []contract.FailedCriterion{
			{Criterion: "criterion " + strconv.Itoa(g.rng.IntN(4)), FailureClass: genClasses[g.rng.IntN(2)]}}})
	}
	for i := 0; i < g.rng.IntN(4); i++ {
		o.ToolCalls = append(o.ToolCalls, fmt.Sprintf("%s:/srv/%s/%d → %s", genTools[g.rng.IntN(len(genTools))], task, g.rng.IntN(50), g.text(3)))
	}
	if fail && g.rng.IntN(40) == 0 {
		o.Fault = &contract.Fault{Role: "R3", Kind: contract.FaultModelUnavailable, Detail: g.text(6)}
	}
	return o
}

func (g *streamGen) replan(task string) *contract.ReplanRequest {
	r := &contract.ReplanRequest{
		TaskID:          task,
		GapSummary:      g.text(25),
		CorrectionCount: g.rng.IntN(4),
		ElapsedMS:       int64(1000 * (1 + g.rng.IntN(600))),
		Recommendation:  []string{"replan", "retry", ""}[g.rng.IntN(3)],
		FailedSubTasks:  []string{},
	}
	if g.rng.IntN(2) == 0 {
		r.Intent = g.text(6)
	}
	for k := 0; k < 2+g.rng.IntN(3); k++ {
		o := g.subtask(task, k, false)
		if o.Status == contract.OutcomeFailed {
			r.FailedSubTasks = append(r.FailedSubTasks, o.SubTaskID)
		}
		r.Outcomes = append(r.Outcomes, o)
	}
	for i := 0; i < g.rng.IntN(3); i++ {
		r.TaskCriteriaVerdicts = append(r.TaskCriteriaVerdicts, g.verdict(g.rng.IntN(2) == 0))
	}
	return r
}

func (g *streamGen) outcome(task string) *contract.OutcomeSummary {
	s := &contract.OutcomeSummary{
		TaskID:    task,
		Summary:   g.text(15),
		Output:    g.output(),
		ElapsedMS: int64(1000 * (1 + g.rng.IntN(600))),
	}
	for k := 0; k < g.rng.IntN(3); k++ {
		s.Outcomes = append(s.Outcomes, g.subtask(task, k, true))
	}
	return s
}
