package client

import (
	"bufio"
	"io"
	"sync"
)

// SSE responses are read through pooled readers: a response stream is
// short-lived and one buffer per call would dominate what a call
// allocates. readLine joins lines longer than the buffer.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

func getReader(r io.Reader) *bufio.Reader {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func putReader(br *bufio.Reader) {
	br.Reset(nil)
	readers.Put(br)
}
