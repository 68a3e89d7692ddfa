package contract

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsOnlyTheBottom keeps contract at the bottom of the import graph: every role,
// the engine and the memory import it, so it may import nothing of theirs. The one kind
// of project package it may import is one below it, which itself imports nothing of the
// project (internal/strictjson, the one strict JSON decoder).
func TestImportsOnlyTheBottom(t *testing.T) {
	const module = "github.com/agentspine/spine"
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctx := build.Default
		ctx.GOOS = goos
		for _, imp := range projectImports(t, ctx, ".", module) {
			dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(imp, module+"/")))
			if below := projectImports(t, ctx, dir, module); len(below) > 0 {
				t.Errorf("GOOS=%s: contract imports %s, which imports %s; contract may import only packages that import nothing of the project", goos, imp, strings.Join(below, ", "))
			}
		}
	}
}

// projectImports lists the imports of the package in dir that belong to module.
func projectImports(t *testing.T, ctx build.Context, dir, module string) []string {
	t.Helper()
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("GOOS=%s: %s: %v", ctx.GOOS, dir, err)
	}
	var out []string
	for _, imp := range pkg.Imports {
		if imp == module || strings.HasPrefix(imp, module+"/") {
			out = append(out, imp)
		}
	}
	return out
}
