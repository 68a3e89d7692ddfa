package fleet

import (
	"context"
	"os"
)

// RunGraceful runs the worker as a process does: the first interrupt (or the end of
// ctx) stops it taking tasks (Stop), tells onStop, and lets the runs in hand end and be
// recorded; a second interrupt aborts them, and their tasks are redelivered elsewhere.
func (w *Worker) RunGraceful(ctx context.Context, interrupts <-chan os.Signal, onStop func()) error {
	runCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-interrupts:
		case <-ctx.Done():
		case <-done:
			return
		}
		w.Stop()
		if onStop != nil {
			onStop()
		}
		select {
		case <-interrupts:
			abort()
		case <-done:
		}
	}()
	return w.Run(runCtx)
}
