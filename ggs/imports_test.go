package ggs

import (
	"errors"
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportsNoEffector keeps the layers: the roles' effectors build on GGS (they run its
// Loop), so nothing GGS depends on, directly or through another package of the project,
// may be an effector. The walk reads the same import lists as go list -deps, for each
// GOOS whose build constraints could pull in a different file.
func TestImportsNoEffector(t *testing.T) {
	const module = "github.com/agentspine/spine"
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctx := build.Default
		ctx.GOOS = goos
		from := map[string]string{module + "/ggs": ""} // each project package reached, and its importer
		queue := []string{module + "/ggs"}
		for len(queue) > 0 {
			path := queue[0]
			queue = queue[1:]
			dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(path, module+"/")))
			pkg, err := ctx.ImportDir(dir, 0)
			if err != nil {
				var none *build.NoGoError
				if errors.As(err, &none) {
					continue
				}
				t.Fatalf("GOOS=%s: %s: %v", goos, path, err)
			}
			for _, imp := range pkg.Imports { // sorted, so the walk and its report are stable
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				if _, seen := from[imp]; !seen {
					from[imp] = path
					queue = append(queue, imp)
				}
			}
		}
		var bad []string
		for path := range from {
			if strings.HasPrefix(path, module+"/effectors/") {
				bad = append(bad, path)
			}
		}
		slices.Sort(bad)
		for _, path := range bad {
			chain := []string{strings.TrimPrefix(path, module+"/")}
			for p := from[path]; p != ""; p = from[p] {
				chain = append([]string{strings.TrimPrefix(p, module+"/")}, chain...)
			}
			t.Errorf("GOOS=%s: ggs depends on the effector %s (%s); the layers run the other way",
				goos, path, strings.Join(chain, " → "))
		}
		if len(from) < 3 {
			t.Errorf("GOOS=%s: the walk reached only %d project packages from ggs; it is not reading the imports", goos, len(from))
		}
	}
}
