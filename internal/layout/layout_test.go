package layout

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the module's directory, two levels above this package's.
const root = "../.."

// packages lists the module's package directories, relative to root and slash-separated,
// as `go list ./...` finds them: directories holding Go files other than tests, outside
// testdata and directories whose name starts with "." or "_".
func packages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if _, err := build.ImportDir(path, 0); err == nil {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var pathCell = regexp.MustCompile("`([^`]+)/`")

// layoutRows reads the paths named in the first column of README.md's layout table.
func layoutRows(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	var paths []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.TrimSpace(cells[1]) == "path" {
			continue
		}
		for _, m := range pathCell.FindAllStringSubmatch(cells[1], -1) {
			paths = append(paths, m[1])
		}
	}
	if len(paths) == 0 {
		t.Fatal("README.md's layout table names no path")
	}
	return paths
}

func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	pkgs := packages(t)
	rows := layoutRows(t)
	for _, p := range pkgs {
		if !slices.Contains(rows, p) {
			t.Errorf("package %s/ has no row in README.md's layout table", p)
		}
	}
	for _, r := range rows {
		if !slices.Contains(pkgs, r) {
			t.Errorf("README.md's layout table names %s/, which is not a package of the module", r)
		}
	}
}

func TestEveryPackageHasADocComment(t *testing.T) {
	for _, p := range packages(t) {
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(p)), build.ImportComment)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(pkg.Doc) == "" {
			t.Errorf("package %s has no doc comment saying what it owns and must not do", p)
		}
	}
}

// TestBottomImportsNothingOfTheProject keeps the packages everything else may import at
// the bottom of the graph: the one clock and the one strict JSON decoder (package
// contract, which may import the latter, checks itself).
func TestBottomImportsNothingOfTheProject(t *testing.T) {
	const module = "github.com/agentspine/spine"
	for _, p := range []string{"clock", "internal/strictjson"} {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			ctx := build.Default
			ctx.GOOS = goos
			pkg, err := ctx.ImportDir(filepath.Join(root, filepath.FromSlash(p)), 0)
			if err != nil {
				t.Fatalf("GOOS=%s: %s: %v", goos, p, err)
			}
			for _, imp := range pkg.Imports {
				if imp == module || strings.HasPrefix(imp, module+"/") {
					t.Errorf("GOOS=%s: %s imports %s; it must import nothing of the project", goos, p, imp)
				}
			}
		}
	}
}
