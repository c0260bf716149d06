package server

import "time"

// Session requests that may outlive their POST run on goroutines of their
// own. These are kept for a while after their last request: a request
// then starts on a goroutine whose stack has grown already, instead of a
// new one that copies its stack on its first deep call (several µs, much
// of what a quick request costs).
type workerPool struct {
	work chan func()
}

// workerIdle is how long an idle worker waits for more work before it
// exits.
const workerIdle = time.Second

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
		select {
		case f := <-p.work:
			f()
			t.Reset(workerIdle)
		case <-t.C:
			return
		}
	}
}
