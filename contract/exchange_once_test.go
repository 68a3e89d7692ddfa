package contract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExchangeShapesDeclaredOnce fails when a struct outside this file's declarations
// carries the JSON fields of an exchange shape declared in exchange.go: a second
// declaration of what a model call or a tool call records, which a reader would have to
// keep in step by hand. A struct redeclares a shape when its JSON names are among the
// shape's and include every name the shape always writes (those without omitempty):
// it then decodes the same record. Every struct in the module's non-test Go files is
// checked, named or anonymous, except in the packages of wireFormats.
func TestExchangeShapesDeclaredOnce(t *testing.T) {
	fset := token.NewFileSet()
	own, err := parser.ParseFile(fset, "exchange.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		name          string
		all, required []string
	}
	var shapes []shape
	for _, d := range own.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				all, req := jsonNames(st)
				shapes = append(shapes, shape{ts.Name.Name, all, req})
			}
		}
	}
	if len(shapes) < 8 {
		t.Fatalf("exchange.go declares %d struct shapes, want the model and tool exchanges' (8 or more)", len(shapes))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root: %v", err)
	}
	self, _ := filepath.Abs("exchange.go")
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(root, path); wireFormats[filepath.ToSlash(rel)] {
				return filepath.SkipDir
			}
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == self {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			names, _ := jsonNames(st)
			if len(names) < 2 {
				return true
			}
			for _, sh := range shapes {
				if subset(names, sh.all) && subset(sh.required, names) {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d: a struct with the JSON fields %v declares contract.%s again; use contract.%s",
						rel, fset.Position(st.Pos()).Line, names, sh.name, sh.name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files of the module, want its whole tree", files)
	}
}

// wireFormats are packages whose structs are a provider's HTTP format, not the trace's
// record: they resemble the model exchange because the record was modelled on the
// OpenAI API, and they must not follow it when the record gains a field.
var wireFormats = map[string]bool{
	"effectors/llm/llmtest": true, // a stand-in OpenAI endpoint: the API's own request, message and usage
}

// jsonNames are a struct's JSON field names from its tags, sorted, and those of them
// without omitempty. Fields without a json tag are left out.
func jsonNames(st *ast.StructType) (all, required []string) {
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			continue
		}
		tag, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			continue
		}
		v, ok := reflect.StructTag(tag).Lookup("json")
		if !ok {
			continue
		}
		name, opts, _ := strings.Cut(v, ",")
		if name == "" || name == "-" {
			continue
		}
		all = append(all, name)
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			required = append(required, name)
		}
	}
	slices.Sort(all)
	slices.Sort(required)
	return all, required
}

// subset reports whether every name of a is in b.
func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
