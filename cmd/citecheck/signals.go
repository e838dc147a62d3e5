package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"time"
)

// signalContext is the context main gives run: cancelled by the first of
// its signals, after which their default action is back, so that a second
// one ends the process. It asks for the signals only when first used
// (Done, Err or Value, which every derived context and every wait calls):
// os/signal's watcher is a goroutine parked on its own thread, and starting
// it costs a process 0.2–0.3 ms (bench/hello beside the same program with
// signal.NotifyContext), a tenth of a whole `run` on a small body, which
// never looks at its context. A signal before the first use has its default
// action: nothing has started that a graceful stop would finish.
type signalContext struct {
	parent context.Context
	sigs   []os.Signal
	once   sync.Once
	ctx    context.Context
	stop   context.CancelFunc
}

func onSignal(parent context.Context, sigs ...os.Signal) *signalContext {
	return &signalContext{parent: parent, sigs: sigs}
}

func (c *signalContext) wired() context.Context {
	c.once.Do(func() {
		ctx, cancel := context.WithCancel(c.parent)
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, c.sigs...)
		c.ctx = ctx
		c.stop = func() { signal.Stop(ch); cancel() }
		// Not signal.NotifyContext: it cancels first and lets the caller
		// give the signals back later, so whoever sees Done (the service's
		// "shutting down") could send a second signal into the gap, where
		// it was swallowed. Here the default action is back before Done.
		go func() {
			select {
			case <-ch:
				c.stop()
			case <-ctx.Done():
				signal.Stop(ch)
			}
		}()
	})
	return c.ctx
}

func (c *signalContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *signalContext) Done() <-chan struct{}       { return c.wired().Done() }
func (c *signalContext) Err() error                  { return c.wired().Err() }
func (c *signalContext) Value(key any) any           { return c.wired().Value(key) }

// Stop gives the signals their default action back, if they were asked for.
func (c *signalContext) Stop() {
	c.once.Do(func() {}) // no wiring from here on
	if c.stop != nil {
		c.stop()
	}
}
