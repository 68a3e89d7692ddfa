//go:build linux

package launch

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayLow keeps the package initialised early: it may import the standard
// library only (see the package comment). A module import would put the launcher's init
// behind every package sorted before that module's path.
func TestImportsStayLow(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the launcher's package imports the standard library only", f, path)
			}
		}
	}
}

func TestArgvRoundTrip(t *testing.T) {
	limits := []Limit{{Resource: 6, Value: 512}, {Resource: 7, Value: 4096}}
	a := Argv("/proc/self/fd/7", limits, true, "/bin/sh", "-c", "echo run -- probe")
	if a[0] != "/proc/self/fd/7" || a[1] != Arg {
		t.Fatalf("argv = %q", a)
	}
	la, err := parseLaunchArgs(a[2:])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(la.limits, limits) || !la.probe || !reflect.DeepEqual(la.argv, []string{"/bin/sh", "-c", "echo run -- probe"}) {
		t.Errorf("parsed %+v", la)
	}
	for _, bad := range [][]string{{"run"}, {"6=x", "run", "--", "sh"}, {"probe", "sh"}, {}} {
		if _, err := parseLaunchArgs(bad); err == nil {
			t.Errorf("parseLaunchArgs(%q) accepted", bad)
		}
	}
}
