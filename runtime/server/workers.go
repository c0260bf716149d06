package server

import (
	"sync/atomic"
	"time"
)

// Session requests that may outlive their POST, and the stdio readers
// (which go on to serve the request they read), run on goroutines of
// their own. These are kept for a while after their last work: a request
// then starts on a goroutine whose stack has grown already, instead of a
// new one that copies its stack on its first deep call (several µs, much
// of what a quick request costs).
type workerPool struct {
	work chan func()
	idle atomic.Int32 // workers waiting for work
}

// workerIdle is how long an idle worker waits for more work before it
// exits; at most maxIdleWorkers wait, so that a burst of requests does
// not leave its goroutines behind.
const (
	workerIdle     = time.Second
	maxIdleWorkers = 8
)

var workers = &workerPool{work: make(chan func())}

// run runs f on an idle worker, or on a new one when none is idle.
func (p *workerPool) run(f func()) {
	select {
	case p.work <- f:
	default:
		go p.worker(f)
	}
}

func (p *workerPool) worker(f func()) {
	f()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		if p.idle.Add(1) > maxIdleWorkers {
			p.idle.Add(-1)
			return
		}
		select {
		case f := <-p.work:
			p.idle.Add(-1)
			f()
			t.Reset(workerIdle)
		case <-t.C:
			p.idle.Add(-1)
			return
		}
	}
}
