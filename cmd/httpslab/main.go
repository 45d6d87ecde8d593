// Command httpslab measures where the time of an HTTPS request goes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/httpslab/httpslab/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
