package turngate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// writeLoop is the only writer of the bridge's stdin. It batches whatever requests are
// ready into one flush. On stopWrite (Close) it flushes and closes stdin, which the bridge
// reads as EOF; on a write error it kills the bridge so pending calls fail promptly with
// the exit error.
func (c *Client) writeLoop(stdin io.WriteCloser) {
	bw := bufio.NewWriterSize(stdin, 64<<10)
	var werr error
	write := func(line []byte) {
		if werr == nil {
			_, werr = bw.Write(line)
		}
	}
	for {
		select {
		case line := <-c.writeCh:
			write(line)
			for more := true; more; {
				select {
				case line := <-c.writeCh:
					write(line)
				default:
					more = false
				}
			}
			if werr == nil {
				werr = bw.Flush()
			}
			if werr != nil {
				c.kill()
			}
		case <-c.stopWrite:
			_ = bw.Flush()
			_ = stdin.Close()
			return
		case <-c.done:
			_ = stdin.Close()
			return
		}
	}
}

// readLoop reads the bridge's stdout line by line (bufio.Reader, so lines up to the
// message limit work) and dispatches each one. A line over the limit, or one that is not a
// JSON object, is a fatal protocol violation.
func (c *Client) readLoop() {
	defer close(c.readerDone)
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			if len(long) > c.cfg.maxMessage+1 {
				c.setFatal(&ProtocolError{Code: "protocol_violation", Message: fmt.Sprintf("bridge sent a line over the %d-byte message limit", c.cfg.maxMessage), Line: truncate(long)})
				return
			}
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > c.cfg.maxMessage {
			c.setFatal(&ProtocolError{Code: "protocol_violation", Message: fmt.Sprintf("bridge sent a line over the %d-byte message limit", c.cfg.maxMessage), Line: truncate(line)})
			return
		}
		if len(bytes.TrimSpace(line)) > 0 && !c.dispatch(line) {
			return
		}
		if cap(long) > 1<<20 {
			long = nil // do not pin a huge buffer between large messages
		} else {
			long = long[:0]
		}
		if err != nil {
			return // EOF (or the pipe was closed): supervise takes over
		}
	}
}

// dispatch handles one line: a response goes to its pending call, a notification to the
// handler. It returns false after a fatal protocol violation.
func (c *Client) dispatch(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	var env envelope
	if trimmed[0] != '{' {
		c.setFatal(&ProtocolError{Code: "protocol_violation", Message: "bridge sent a line that is not a JSON object", Line: truncate(line)})
		return false
	}
	if err := json.Unmarshal(trimmed, &env); err != nil {
		c.setFatal(&ProtocolError{Code: "protocol_violation", Message: "bridge sent a line that is not valid JSON-RPC", Line: truncate(line), Err: err})
		return false
	}
	if isNull(env.ID) {
		switch {
		case env.Method != "" && env.JSONRPC == "2.0":
			c.notify(Notification{Method: env.Method, Params: env.Params})
			return true
		case env.Error != nil:
			c.setFatal(&ProtocolError{Code: "protocol_violation", Message: "bridge reported an error for an unidentifiable request: " + env.Error.describe(), Line: truncate(line)})
		default:
			c.setFatal(&ProtocolError{Code: "protocol_violation", Message: "bridge sent a message that is neither a response nor a notification", Line: truncate(line)})
		}
		return false
	}
	id, ok := parseID(env.ID)
	if !ok {
		c.setFatal(&ProtocolError{Code: "protocol_violation", Message: "bridge sent a response whose id is not one of this client's request ids", Line: truncate(line)})
		return false
	}
	p := c.take(id)
	if p == nil {
		return true // the caller gave up (cancelled); drop the late response
	}
	var r response
	switch {
	case env.JSONRPC != "2.0":
		r.err = &ProtocolError{Code: "protocol_violation", Method: p.method, Message: fmt.Sprintf("response has jsonrpc %q, want \"2.0\"", env.JSONRPC), Line: truncate(line)}
	case env.Error != nil && env.Result != nil:
		r.err = &ProtocolError{Code: "protocol_violation", Method: p.method, Message: "response has both result and error", Line: truncate(line)}
	case env.Error != nil:
		r.err = env.Error.toError(p.method)
	case env.Result == nil:
		r.err = &ProtocolError{Code: "protocol_violation", Method: p.method, Message: "response has neither result nor error", Line: truncate(line)}
	default:
		r.result = env.Result
	}
	p.ch <- r
	return true
}
