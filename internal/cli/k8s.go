package cli

import (
	"time"

	"github.com/httpslab/httpslab/internal/k8s"
	"github.com/spf13/cobra"
)

func newK8sCmd(e *env) *cobra.Command {
	k := &cobra.Command{Use: "k8s", Short: "Kubernetes manifests that run bench on many machines"}
	bench, f := benchCommand(e)
	var job k8s.Job
	var lead time.Duration
	cmd := &cobra.Command{
		Use:   "job [bench flags] URL...",
		Short: "Print an Indexed Job of bench workers that start together",
		RunE: func(cmd *cobra.Command, args []string) error {
			urls, err := f.urls(args)
			if err != nil {
				return err
			}
			if job.Args, err = k8s.BenchArgs(cmd.Flags(), urls); err != nil {
				return usageError{err}
			}
			f.l.Plan.Index = "0" // the flags are checked here as worker 0's
			if _, _, err := f.config(urls); err != nil {
				return err
			}
			job.Workers, job.StartAt = max(f.l.Plan.Workers, 1), time.Now().Add(lead).Truncate(time.Second)
			if err := job.Write(e.stdout); err != nil {
				return usageError{err}
			}
			return nil
		},
	}
	cmd.Flags().AddFlagSet(bench.Flags())
	cmd.Flags().StringVar(&job.Image, "image", k8s.DefaultImage, "the container `image`, with httpslab at "+k8s.Binary)
	cmd.Flags().StringVar(&job.Name, "name", k8s.DefaultName, "the Job's name")
	cmd.Flags().StringVar(&job.Namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	cmd.Flags().DurationVar(&lead, "lead", k8s.DefaultLead, "start the workers this long after now, for the pods to be scheduled and pull the image")
	k.AddCommand(cmd)
	return k
}
