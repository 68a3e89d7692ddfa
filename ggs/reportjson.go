package ggs

import (
	"github.com/agentspine/spine/contract"
)

// reportScan reads one bus message in a single pass over the line, straight into the
// report's structs, without reflection: the hot path of spine ggs. It takes only what it
// reads exactly as encoding/json reads it. At anything else (any error, a key it does
// not know or knows in another case, a repeated key, the payload before the type, a
// string that is not UTF-8 or escapes a surrogate, a number out of range, a null where
// encoding/json would keep a value) it stops, and DecodeMessage asks the reference,
// decodeEnvelope, whose encoding/json reading is the definition and whose errors are the
// ones users see. FuzzReportScanAgrees holds the two to the same Message.
//
// In shared mode (spine ggs's stream, see lineShare) the report's strings share one
// string per line and its outputs are kept as their JSON text.
type reportScan struct {
	b   []byte
	i   int
	buf []byte // scratch for strings with escapes
	sh  lineShare
}

// maxScanDepth bounds the nesting of outputs the scan follows; deeper goes to the
// reference, which has its own limit and error.
const maxScanDepth = 512

func (s *reportScan) message(line []byte) (Message, bool) {
	if !s.sh.on {
		return s.scan(line)
	}
	s.sh.start(line)
	m, ok := s.scan(line)
	if ok && !s.sh.settled() {
		s.sh.start(line)
		if m, ok = s.scan(line); !s.sh.settled() {
			ok = false // cannot be: the lists have grown to the line
		}
	}
	if ok {
		s.sh.finish()
	}
	return m, ok
}

// scan is message's one pass over the line.
func (s *reportScan) scan(line []byte) (Message, bool) {
	s.b, s.i = line, 0
	var m Message
	var target int // 0 none yet, 1 replan, 2 outcome
	decoded := false
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			if target != 0 {
				return false
			}
			switch t, ok := s.rawString(); {
			case !ok:
				return false
			case string(t) == contract.TypeReplanRequest:
				target = 1
			case string(t) == contract.TypeOutcomeSummary:
				target = 2
			default:
				return false
			}
		case "payload":
			if decoded || !s.peek('{') {
				return false
			}
			decoded = true
			switch target {
			case 1:
				m.Replan = s.sh.replanRequest()
				return s.replan(m.Replan)
			case 2:
				m.Outcome = s.sh.outcomeSummary()
				return s.outcome(m.Outcome)
			}
			return false // the payload before its type
		default:
			return false
		}
		return true
	})
	if !ok || !decoded {
		return Message{}, false
	}
	if s.ws(); s.i != len(s.b) {
		return Message{}, false
	}
	return m, true
}

// The report's structs, one reader each: the names of its fields (fieldSet), and a
// switch on the field a key names that reads the value.

var (
	replanFields = newFieldSet("task_id", "intent", "gap_summary", "failed_subtasks", "correction_count",
		"elapsed_ms", "outcomes", "task_criteria_verdicts", "recommendation", "fault")
	outcomeFields = newFieldSet("task_id", "intent", "summary", "output", "elapsed_ms", "outcomes")
	subtaskFields = newFieldSet("subtask_id", "parent_task_id", "status", "output", "failure_reason", "criteria_verdicts", "gap_trajectory", "tool_calls", "fault")
	verdictFields = newFieldSet("criterion", "mode", "verdict", "failure_class", "evidence")
	gapFields     = newFieldSet("attempt", "failed_criteria")
	failedFields  = newFieldSet("criterion", "failure_class")
	faultFields   = newFieldSet("role", "kind", "detail")
)

func (s *reportScan) replan(r *contract.ReplanRequest) bool {
	return s.fields(replanFields, func(k int) bool {
		switch k {
		case 0:
			return s.kept(&r.TaskID)
		case 1:
			return s.kept(&r.Intent)
		case 2:
			return s.str(&r.GapSummary)
		case 3:
			return s.strings(&r.FailedSubTasks)
		case 4:
			return s.int(&r.CorrectionCount)
		case 5:
			return s.int64(&r.ElapsedMS)
		case 6:
			return s.subtasks(&r.Outcomes)
		case 7:
			return s.verdicts(&r.TaskCriteriaVerdicts)
		case 8:
			return s.str(&r.Recommendation)
		}
		return s.fault(&r.Fault)
	})
}

func (s *reportScan) outcome(o *contract.OutcomeSummary) bool {
	return s.fields(outcomeFields, func(k int) bool {
		switch k {
		case 0:
			return s.kept(&o.TaskID)
		case 1:
			return s.kept(&o.Intent)
		case 2:
			return s.str(&o.Summary)
		case 3:
			return s.output(&o.Output)
		case 4:
			return s.int64(&o.ElapsedMS)
		}
		return s.subtasks(&o.Outcomes)
	})
}

func (s *reportScan) subtasks(out *[]contract.SubTaskOutcome) bool {
	return array(s, out, &s.sh.subtasks, func(o *contract.SubTaskOutcome) bool {
		return s.fields(subtaskFields, func(k int) bool {
			switch k {
			case 0:
				return s.str(&o.SubTaskID)
			case 1:
				return s.str(&o.ParentTaskID)
			case 2:
				return s.str(&o.Status)
			case 3:
				return s.output(&o.Output)
			case 4:
				return s.strPtr(&o.FailureReason)
			case 5:
				return s.verdicts(&o.CriteriaVerdicts)
			case 6:
				return s.gaps(&o.GapTrajectory)
			case 7:
				return s.strings(&o.ToolCalls)
			}
			return s.fault(&o.Fault)
		})
	})
}

func (s *reportScan) verdicts(out *[]contract.CriterionVerdict) bool {
	return array(s, out, &s.sh.verdicts, func(v *contract.CriterionVerdict) bool {
		return s.fields(verdictFields, func(k int) bool {
			switch k {
			case 0:
				return s.str(&v.Criterion)
			case 1:
				return s.str(&v.Mode)
			case 2:
				return s.str(&v.Verdict)
			case 3:
				return s.strPtr(&v.FailureClass)
			}
			return s.evidence(&v.Evidence)
		})
	})
}

func (s *reportScan) gaps(out *[]contract.GapAttempt) bool {
	return array(s, out, &s.sh.gaps, func(g *contract.GapAttempt) bool {
		return s.fields(gapFields, func(k int) bool {
			if k == 0 {
				return s.int(&g.Attempt)
			}
			return array(s, &g.FailedCriteria, &s.sh.failed, func(fc *contract.FailedCriterion) bool {
				return s.fields(failedFields, func(k int) bool {
					if k == 0 {
						return s.str(&fc.Criterion)
					}
					return s.str(&fc.FailureClass)
				})
			})
		})
	})
}

func (s *reportScan) fault(out **contract.Fault) bool {
	if s.null() {
		return true
	}
	x := s.sh.fault()
	*out = x
	return s.fields(faultFields, func(k int) bool {
		switch k {
		case 0:
			return s.str(&x.Role)
		case 1:
			return s.str(&x.Kind)
		}
		return s.str(&x.Detail)
	})
}

// fieldSet is the JSON names of a struct's fields (at most 32), in the order
// encoding/json writes them, each as it comes quoted in a line.
type fieldSet struct{ quoted []string }

func newFieldSet(names ...string) *fieldSet {
	fs := &fieldSet{}
	for _, n := range names {
		fs.quoted = append(fs.quoted, `"`+n+`"`)
	}
	return fs
}

// name is the field the key names, or -1.
func (fs *fieldSet) name(key []byte) int {
	for k, q := range fs.quoted {
		if len(q) == len(key)+2 && string(key) == q[1:len(q)-1] {
			return k
		}
	}
	return -1
}

// fields reads an object into a struct whose fields fs names, each member's value by
// read(k), k the field its key names. A key no field names, or a field seen before (a
// repeated key), is the reference's to read. A key is first taken as the field after
// the one before, the order encoding/json writes them in: then it is not read twice.
func (s *reportScan) fields(fs *fieldSet, read func(k int) bool) bool {
	if empty, ok := s.openObject(); empty || !ok {
		return ok
	}
	var seen uint32
	for next := 0; ; {
		k := -1
		if s.ws(); next < len(fs.quoted) && hasPrefix(s.b[s.i:], fs.quoted[next]) {
			k = next
			s.i += len(fs.quoted[k])
		} else if key, ok := s.rawString(); !ok {
			return false
		} else if k = fs.name(key); k < 0 {
			return false
		}
		if seen&(1<<k) != 0 || !s.peek(':') {
			return false
		}
		seen |= 1 << k
		s.i++
		if !read(k) {
			return false
		}
		next = k + 1
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

// hasPrefix is bytes.HasPrefix for a string prefix.
func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}
