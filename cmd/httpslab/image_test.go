//go:build !race

package main

// The container image, assembled without a daemon from the repository's
// Dockerfile with go-containerregistry: the test follows the Dockerfile's
// own lines (FROM scratch, COPY, ENTRYPOINT), writes the image as a
// tarball as docker save would, reads it back, and runs the binary taken
// out of its layer as a bench worker in a network namespace, beside a
// worker of this machine's build.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// recipe is what the Dockerfile says.
type recipe struct {
	from       string
	copies     [][2]string // source in the build context, destination
	entrypoint []string
}

// readDockerfile reads the repository's Dockerfile; an instruction the
// test cannot follow fails it, so the recipe and the test cannot part.
func readDockerfile(t *testing.T) recipe {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r recipe
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, args, _ := strings.Cut(line, " ")
		switch strings.ToUpper(op) {
		case "FROM":
			r.from = strings.TrimSpace(args)
		case "COPY":
			f := strings.Fields(args)
			if len(f) != 2 || strings.HasPrefix(f[0], "--") {
				t.Fatalf("Dockerfile: %q: the test follows COPY SRC DST only", line)
			}
			r.copies = append(r.copies, [2]string{f[0], f[1]})
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(args), &r.entrypoint); err != nil {
				t.Fatalf("Dockerfile: %q: want the exec form, a JSON array: %v", line, err)
			}
		default:
			t.Fatalf("Dockerfile: %q: an instruction this test does not follow", line)
		}
	}
	if r.from != "scratch" || len(r.copies) != 1 || len(r.entrypoint) == 0 {
		t.Fatalf("Dockerfile: FROM %q, %d COPY, ENTRYPOINT %q; want FROM scratch, one COPY of the binary and an ENTRYPOINT", r.from, len(r.copies), r.entrypoint)
	}
	return r
}

// buildImage builds the static binary the Dockerfile's COPY takes, makes
// its layer and the image, and writes the image to a tarball.
func buildImage(t *testing.T, r recipe) string {
	t.Helper()
	dir := t.TempDir()
	src, dst := r.copies[0][0], r.copies[0][1]
	build := exec.Command("go", "build", "-o", filepath.Join(dir, src), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	bin, err := os.ReadFile(filepath.Join(dir, src))
	if err != nil {
		t.Fatal(err)
	}
	var layerTar bytes.Buffer
	tw := tar.NewWriter(&layerTar)
	// COPY keeps the file's mode: an executable stays one.
	hdr := &tar.Header{Name: strings.TrimPrefix(path.Clean(dst), "/"), Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg,
		ModTime: time.Unix(0, 0)}
	if err := tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	tw.Write(bin)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Config.Entrypoint = "linux", runtime.GOARCH, r.entrypoint
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	if err := tarball.WriteToFile(out, name.MustParseReference("httpslab:test"), img); err != nil {
		t.Fatal(err)
	}
	return out
}

// extractBinary reads the image back from its tarball, checks its
// configuration and layers, and writes the entrypoint's file, taken out
// of the image's file system, to dir.
func extractBinary(t *testing.T, image, dir string, r recipe) string {
	t.Helper()
	img, err := tarball.ImageFromPath(image, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{"/httpslab"}) || cf.OS != "linux" {
		t.Errorf("the image's entrypoint %q on %s; want [/httpslab] on linux", cf.Config.Entrypoint, cf.OS)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("the image has %d layers (%v); want one, the binary's, on an empty base", len(layers), err)
	}
	if diffs := cf.RootFS.DiffIDs; len(diffs) != 1 {
		t.Errorf("the image's configuration names %d layers; want 1", len(diffs))
	} else if id, _ := layers[0].DiffID(); id != diffs[0] {
		t.Errorf("the layer's diff id %v; the configuration names %v", id, diffs[0])
	}
	fs := tar.NewReader(mutate.Extract(img))
	var files []string
	var bin string
	for {
		hdr, err := fs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, hdr.Name)
		if "/"+hdr.Name != r.entrypoint[0] {
			continue
		}
		if hdr.Mode&0o111 == 0 {
			t.Errorf("%s in the image has mode %o; want it executable", hdr.Name, hdr.Mode)
		}
		bin = filepath.Join(dir, "httpslab-from-image")
		data, err := io.ReadAll(fs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) != 1 || bin == "" {
		t.Fatalf("the image's files: %q; want the entrypoint %s alone", files, r.entrypoint[0])
	}
	return bin
}

// TestImage assembles the image, checks the binary in it is static (an
// empty base has no dynamic loader) and runs it as worker 0 of two, in a
// namespace of its own, beside worker 1 of this machine's build: both
// run, nginx sees both, and httpslab merge combines their results.
func TestImage(t *testing.T) {
	r := readDockerfile(t)
	image := buildImage(t, r)
	bin := extractBinary(t, image, t.TempDir(), r)
	e, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range e.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the image's binary asks for a dynamic loader; an empty base has none (build with CGO_ENABLED=0)")
		}
	}
	e.Close()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "httpslab ") {
		t.Errorf("the image's binary: httpslab version = %q, %v", out, err)
	}

	d := startDistLab(t, 2)
	d.bins = []string{bin, d.bin}
	at := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	runs := d.runWorkers(t, make([]time.Duration, 2), "-n", "400", "-c", "4", "--start-at", at)
	for i, w := range runs {
		if w.code != 0 || w.doc.Result.Requests != 200 {
			t.Fatalf("worker %d: exit %d, %d requests; want 0 and 200; stderr:\n%s", i, w.code, w.doc.Result.Requests, w.stderr)
		}
	}
	if a, b := runs[0].doc.Result.Run.ConfigHash, runs[1].doc.Result.Run.ConfigHash; a != b {
		t.Errorf("the image's worker's config_hash %s, the local one's %s; want one run's", a, b)
	}
	code, doc, stderr := d.merge(t, runs...)
	var merged benchDoc
	if err := json.Unmarshal([]byte(doc), &merged); code != 0 || err != nil || merged.Result.Requests != 400 {
		t.Errorf("httpslab merge of the two workers: exit %d, %v, %d requests; want 0 and 400; stderr:\n%s", code, err, merged.Result.Requests, stderr)
	}
	if lines := d.readLog(t, 0, 400); len(lines) != 400 {
		t.Errorf("nginx logged %d requests; want the two workers' 400", len(lines))
	}
}
