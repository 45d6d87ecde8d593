//go:build !race

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The tests of this package run the built httpslab as a child process.
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
	buildOut  []byte
)

// httpslabBinary builds httpslab once for the package's tests and returns
// the directory that holds it.
func httpslabBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "httpslab-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		buildOut, buildErr = exec.Command("go", "build", "-o", filepath.Join(dir, "httpslab"), ".").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return buildDir
}

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
