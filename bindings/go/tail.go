package turngate

import (
	"io"
	"sync"
)

// tailBuffer keeps the last max bytes written to it and copies every write to an optional
// sink. It is the bridge's stderr: the tail goes into BridgeError.Stderr.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	sink io.Writer
}

// Write keeps the tail and copies p to the sink; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	if t.max > 0 {
		t.buf = append(t.buf, p...)
		if over := len(t.buf) - t.max; over > 0 {
			t.buf = append(t.buf[:0], t.buf[over:]...)
		}
	}
	sink := t.sink
	t.mu.Unlock()
	if sink != nil {
		_, _ = sink.Write(p) // a failing sink must not stop the bridge's stderr
	}
	return len(p), nil
}

// String returns the kept tail.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
