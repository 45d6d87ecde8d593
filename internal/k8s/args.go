package k8s

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// podFlags are bench flags a pod cannot be given as they were given here,
// and why; Job's own flags (set per pod) are among them.
var podFlags = map[string]string{
	"index":       "each pod takes its index from JOB_COMPLETION_INDEX",
	"start-at":    "the job sets it --lead ahead",
	"workers":     "", // set by the job
	"json":        "", // set by the job
	"input-file":  "", // its URLs are passed as arguments
	"server-pid":  "a pod measures no process of this machine",
	"request-log": "a pod's files go with it; the pods write --json",
	"csv":         "the pods write --json, which httpslab merge reads",
	"html":        "the pods write --json; httpslab report makes the HTML of the merged result",
	"image":       "",
	"name":        "",
	"namespace":   "",
	"lead":        "",
	"start-grace": "-", // passed on
}

// BenchArgs returns the bench command line a pod runs, after Job's own
// part: the flags of fs that were set, written --name=value, then urls.
// Flags that cannot reach a pod as given (a local process, an output
// file, a file read for the body) are refused with the reason.
func BenchArgs(fs *pflag.FlagSet, urls []string) ([]string, error) {
	var args []string
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		why, special := podFlags[f.Name]
		switch {
		case !f.Changed || err != nil || special && why == "":
			return
		case special && why != "-":
			err = fmt.Errorf("--%s: %s", f.Name, why)
			return
		}
		values := []string{f.Value.String()}
		if s, ok := f.Value.(pflag.SliceValue); ok {
			values = s.GetSlice()
		}
		for _, v := range values {
			if strings.HasPrefix(v, "@") && (f.Name == "data" || f.Name == "duration") {
				err = fmt.Errorf("--%s %s: a pod cannot read this machine's files; give the body as --data TEXT, or build it into the image", f.Name, v)
				return
			}
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	return append(args, urls...), err
}
