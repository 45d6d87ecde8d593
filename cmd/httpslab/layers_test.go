package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layers is the architecture of docs/architecture.md as data: every
// package under internal/ and its layer. A package imports only packages
// of lower layers, so imports point one way (cli → runners → core →
// transport) and no new package lands without a place in the picture.
// labtest is test support: only _test.go files may import it.
var layers = map[string]int{
	"stats": 0, "machine": 0, "nginxconf": 0, "k8s": 0, "usage": 0,
	"transport": 1, "netem": 1, "lab": 1,
	"probe": 2, "load": 2, "tlsscan": 2, "embedded": 2,
	"compare": 3, "merge": 3,
	"page": 4,
	"demo": 5, "experiment": 5,
	"report":  6,
	"cli":     7,
	"labtest": 3,
}

const modulePath = "github.com/httpslab/httpslab/internal/"

// TestLayers checks that the imports of every internal package's non-test
// files point to lower layers only, that no non-test file imports
// labtest, and that every package has a layer.
func TestLayers(t *testing.T) {
	dirs, err := os.ReadDir("../../internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		pkg := d.Name()
		layer, ok := layers[pkg]
		if !ok {
			t.Errorf("internal/%s has no layer: add it to layers here and to docs/architecture.md", pkg)
			continue
		}
		for _, imp := range internalImports(t, filepath.Join("../../internal", pkg)) {
			switch l, known := layers[imp]; {
			case imp == "labtest" && pkg != "labtest":
				t.Errorf("internal/%s imports labtest outside its tests: test support must stay out of the binary", pkg)
			case !known:
				t.Errorf("internal/%s imports internal/%s, which has no layer", pkg, imp)
			case l >= layer:
				t.Errorf("internal/%s (layer %d) imports internal/%s (layer %d): imports must point to lower layers", pkg, layer, imp, l)
			}
		}
	}
}

// internalImports lists the internal packages the non-test Go files of
// dir import.
func internalImports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if rest, ok := strings.CutPrefix(path, modulePath); ok {
				seen[strings.SplitN(rest, "/", 2)[0]] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
