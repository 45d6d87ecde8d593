package k8s

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func benchFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.IntP("connections", "c", 10, "")
	fs.Int("workers", 0, "")
	fs.String("index", "", "")
	fs.StringP("duration", "d", "", "")
	fs.String("data", "", "")
	fs.Bool("json", false, "")
	fs.Bool("http2", false, "")
	fs.StringArrayP("header", "H", nil, "")
	fs.IntSlice("server-pid", nil, "")
	fs.StringP("input-file", "i", "", "")
	fs.String("image", "", "")
	return fs
}

func TestBenchArgs(t *testing.T) {
	fs := benchFlags()
	err := fs.Parse([]string{"-c", "30", "--workers", "3", "--json", "--http2", "-H", "A: 1,2", "-H", "B: 3", "-d", "5s",
		"--image", "x:1", "-i", "urls.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := BenchArgs(fs, []string{"https://a.test/", "https://a.test/b"})
	want := []string{"--connections=30", "--duration=5s", "--header=A: 1,2", "--header=B: 3", "--http2=true", "https://a.test/", "https://a.test/b"}
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("BenchArgs = %q, %v (-want +got):\n%s", got, err, diff)
	}
	// What the pod runs reads back as the flags given here.
	again := benchFlags()
	if err := again.Parse(got); err != nil {
		t.Fatal(err)
	}
	if h, _ := again.GetStringArray("header"); !cmp.Equal(h, []string{"A: 1,2", "B: 3"}) {
		t.Errorf("headers read back as %q", h)
	}
	for _, args := range [][]string{{"--index", "1"}, {"--server-pid", "1"}, {"-d", "@body.json"}, {"--data", "@body.json"}} {
		fs := benchFlags()
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if got, err := BenchArgs(fs, nil); err == nil || !strings.Contains(err.Error(), strings.TrimLeft(args[0], "-")) {
			t.Errorf("BenchArgs(%q) = %q, %v; want an error naming the flag", args, got, err)
		}
	}
}
