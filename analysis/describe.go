package analysis

import (
	"math"
	"strconv"
	"strings"
)

// describe renders a region as expr conditions, one per variable it constrains, in the
// order the variables first appear in the agenda.
func (sp *space) describe(r region) []string {
	var out []string
	absent := map[string]bool{}
	for i, v := range sp.vars {
		if v.form == varPresence {
			if a, p := sp.presence(r, i); a && !p {
				absent[v.kind] = true
			}
		}
	}
	for i, v := range sp.vars {
		all, some := true, false
		for _, ok := range r[i] {
			all = all && ok
			some = some || ok
		}
		if all || !some {
			continue
		}
		if v.form != varPresence && absentAny(v, absent) {
			continue
		}
		switch v.form {
		case varPresence:
			if absent[v.kind] {
				out = append(out, v.kind+" == nil")
			} else {
				out = append(out, v.kind+" != nil")
			}
		case varBool:
			if r[i][1] {
				out = append(out, v.name)
			} else {
				out = append(out, "!"+v.name)
			}
		case varStr:
			out = append(out, describeStr(v, r[i]))
		case varDiff:
			out = append(out, describeDiff(v, r[i]))
		case varNum:
			out = append(out, describeNum(v, r[i]))
		}
	}
	return out
}

func absentAny(v *variable, absent map[string]bool) bool {
	for _, f := range v.fields {
		if absent[f.kind] {
			return true
		}
	}
	return false
}

func describeStr(v *variable, allowed []bool) string {
	var in, out []string
	otherIn := false
	for j, p := range v.pieces {
		s := p.rep.(string)
		switch {
		case p.other:
			otherIn = allowed[j]
		case allowed[j]:
			in = append(in, strconv.Quote(s))
		default:
			out = append(out, strconv.Quote(s))
		}
	}
	if otherIn {
		if len(out) == 1 {
			return v.name + " != " + out[0]
		}
		return v.name + " not in [" + strings.Join(out, ", ") + "]"
	}
	if len(in) == 1 {
		return v.name + " == " + in[0]
	}
	return v.name + " in [" + strings.Join(in, ", ") + "]"
}

func describeDiff(v *variable, allowed []bool) string {
	var lt, eq, gt bool
	for j, p := range v.pieces {
		if !allowed[j] {
			continue
		}
		switch rep := p.rep.(float64); {
		case rep < 0:
			lt = true
		case rep > 0:
			gt = true
		default:
			eq = true
		}
	}
	op := map[[3]bool]string{
		{true, false, false}: "<", {false, true, false}: "==", {false, false, true}: ">",
		{true, true, false}: "<=", {false, true, true}: ">=", {true, false, true}: "!=",
	}[[3]bool{lt, eq, gt}]
	return v.fields[0].name() + " " + op + " " + v.fields[1].name()
}

type run struct {
	lo, hi     float64
	loIn, hiIn bool
	openLo     bool // starts at the domain's lower end: no lower constraint
	openHi     bool
}

func describeNum(v *variable, allowed []bool) string {
	var runs []run
	for j := 0; j < len(v.pieces); j++ {
		if !allowed[j] {
			continue
		}
		k := j
		for k+1 < len(v.pieces) && allowed[k+1] {
			k++
		}
		first, last := v.pieces[j], v.pieces[k]
		runs = append(runs, run{lo: first.lo, loIn: first.loIn, hi: last.hi, hiIn: last.hiIn, openLo: j == 0, openHi: k == len(v.pieces)-1})
		j = k
	}
	if len(v.fields) == 1 && v.fields[0].numSet != nil {
		var vals []string
		for j, ok := range allowed {
			if ok {
				vals = append(vals, v.num(v.pieces[j].lo))
			}
		}
		if len(vals) == 1 {
			return v.name + " == " + vals[0]
		}
		return v.name + " in [" + strings.Join(vals, ", ") + "]"
	}
	// |x| against a threshold reads better than two runs around it.
	if len(runs) == 2 && runs[0].openLo && runs[1].openHi && runs[0].hi == -runs[1].lo && runs[0].hiIn == runs[1].loIn && runs[1].lo > 0 {
		op := ">"
		if runs[1].loIn {
			op = ">="
		}
		return "abs(" + v.name + ") " + op + " " + v.num(runs[1].lo)
	}
	if len(runs) == 1 && !runs[0].openLo && !runs[0].openHi && runs[0].lo == -runs[0].hi && runs[0].loIn == runs[0].hiIn && runs[0].hi > 0 {
		op := "<"
		if runs[0].hiIn {
			op = "<="
		}
		return "abs(" + v.name + ") " + op + " " + v.num(runs[0].hi)
	}
	parts := make([]string, len(runs))
	for i, rn := range runs {
		parts[i] = v.describeRun(rn)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	for i, p := range parts {
		if strings.Contains(p, "&&") {
			parts[i] = "(" + p + ")"
		}
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

func (v *variable) describeRun(rn run) string {
	if rn.lo == rn.hi && rn.loIn && rn.hiIn {
		return v.name + " == " + v.num(rn.lo)
	}
	var parts []string
	if !rn.openLo {
		op := ">"
		if rn.loIn {
			op = ">="
		}
		parts = append(parts, v.name+" "+op+" "+v.num(rn.lo))
	}
	if !rn.openHi {
		op := "<"
		if rn.hiIn {
			op = "<="
		}
		parts = append(parts, v.name+" "+op+" "+v.num(rn.hi))
	}
	return strings.Join(parts, " && ")
}

// num spells a cut point the way the conditions do (a param, a literal), else as a number.
func (v *variable) num(x float64) string {
	if t, ok := v.thresholds[x]; ok {
		return t
	}
	return fmtNum(x)
}

// domainText describes a variable's domain for the report header.
func (sp *space) domainText(i int) string {
	v := sp.vars[i]
	switch v.form {
	case varPresence:
		if len(v.pieces) == 1 {
			return "present"
		}
		return "present or absent"
	case varBool:
		return "bool"
	case varStr:
		f := v.fields[0]
		if f.strSet != nil {
			return "one of " + strings.Join(quoteAll(f.strSet), ", ")
		}
		return "any string"
	case varDiff:
		return "sign of the difference"
	}
	f := v.fields[0]
	if f.numSet != nil {
		var vals []string
		for _, x := range f.numSet {
			vals = append(vals, fmtNum(x))
		}
		return "one of " + strings.Join(vals, ", ")
	}
	kind := "number"
	if f.integer {
		kind = "integer"
	}
	if math.IsInf(f.lo, -1) && math.IsInf(f.hi, 1) {
		return "any " + kind
	}
	lo, hi := "(-inf", "+inf)"
	if !math.IsInf(f.lo, -1) {
		lo = "[" + fmtNum(f.lo)
	}
	if !math.IsInf(f.hi, 1) {
		hi = fmtNum(f.hi) + "]"
	}
	return kind + " in " + lo + ", " + hi
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
