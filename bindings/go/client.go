package turngate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Client is one running bridge process (`turngate bridge --stdio`) and the JSON-RPC 2.0
// connection to it: one JSON object per line on stdin/stdout (docs/design.md §5).
//
// A Client is safe for concurrent use by many goroutines: requests are multiplexed by id,
// written by one writer goroutine and matched to their callers by one reader goroutine.
// Every call honours its context's cancellation and deadline. Close shuts the bridge down.
type Client struct {
	cfg    config
	info   InitializeResult
	stderr *tailBuffer

	starting atomic.Bool
	started  atomic.Bool
	cmd      *exec.Cmd
	stdout   *os.File

	nextID  atomic.Uint64
	mu      sync.Mutex
	pending map[uint64]*pendingCall
	closing bool  // Close has begun (guarded by mu)
	fatal   error // first protocol violation (guarded by mu)
	termErr error // what pending and later calls fail with, set before done closes

	writeCh    chan []byte
	stopWrite  chan struct{}
	readerDone chan struct{}
	exited     chan struct{}
	exitCode   int    // valid after exited closes
	exitSignal string // valid after exited closes
	done       chan struct{}

	closeOnce sync.Once
	closeErr  error
}

type pendingCall struct {
	method     string
	ch         chan response
	onProgress func(Notification)
}

type response struct {
	result json.RawMessage
	err    error
}

// New returns an unstarted Client configured by opts. Call Start before any method.
// It never fails today; the error is kept for options that validate.
func New(opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxMessage <= 0 {
		return nil, fmt.Errorf("turngate: max message bytes must be positive, got %d", cfg.maxMessage)
	}
	return &Client{
		cfg:        cfg,
		stderr:     &tailBuffer{max: cfg.stderrTail, sink: cfg.stderr},
		pending:    make(map[uint64]*pendingCall),
		writeCh:    make(chan []byte),
		stopWrite:  make(chan struct{}),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
	}, nil
}

// Start is New followed by (*Client).Start: it launches the bridge and completes the
// initialize handshake within ctx. On error nothing is left running.
func Start(ctx context.Context, opts ...Option) (*Client, error) {
	c, err := New(opts...)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Start locates and launches the bridge (see WithCommand for the lookup order), then sends
// initialize and checks the reply names protocol "turngate.bridge.v1". ctx bounds the
// handshake only, not the bridge's lifetime. Errors: *BridgeError ("bridge_not_found",
// "bridge_spawn", or "bridge_exited" when it died during start-up), *ProtocolError (wrong
// protocol id), or the context's error (wrapped). A Client can be started once.
func (c *Client) Start(ctx context.Context) error {
	if !c.starting.CompareAndSwap(false, true) {
		return errors.New("turngate: Start called twice")
	}
	path, args, err := resolveCommand(&c.cfg)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = c.cfg.dir
	cmd.Env = append(os.Environ(), c.cfg.env...)
	cmd.Stderr = c.stderr
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("turngate: stdin pipe: %w", err)
	}
	// Our own pipe for stdout, so cmd.Wait may run while the reader still reads.
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("turngate: stdout pipe: %w", err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		_ = pr.Close()
		_ = pw.Close()
		return &BridgeError{Code: "bridge_spawn", Message: fmt.Sprintf("could not start the turngate bridge %q: %v", path, err), Err: err}
	}
	_ = pw.Close()
	c.cmd, c.stdout = cmd, pr
	go c.waitLoop()
	go c.readLoop()
	go c.writeLoop(stdin)
	go c.supervise()
	c.started.Store(true)

	var info InitializeResult
	hello := InitializeParams{Client: &ClientInfo{Name: Ptr("turngate-go"), Version: Ptr(Version), Language: Ptr("go")}}
	if err := c.Call(ctx, "initialize", hello, &info); err != nil {
		_ = c.Close()
		return err
	}
	if info.Protocol != ProtocolName {
		_ = c.Close()
		return &ProtocolError{Code: "protocol_violation", Method: "initialize", Message: fmt.Sprintf("bridge speaks protocol %q, want %q", info.Protocol, ProtocolName)}
	}
	c.info = info
	return nil
}

// Info returns the bridge's initialize result (protocol, version, methods).
func (c *Client) Info() InitializeResult { return c.info }

// Call sends one request and decodes its result into result (a pointer, or nil to discard
// it). params is marshalled with encoding/json (nil sends no params member). It is the
// escape hatch under the typed methods. Errors: the context's error (wrapped; errors.Is
// works), *InvalidParamsError or *RemoteError (the bridge refused), *ProtocolError (bad
// response, or a request over the message limit), *BridgeError (the bridge died, with its
// stderr tail), ErrClosed, ErrNotStarted.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, params, result, false)
}

func (c *Client) call(ctx context.Context, method string, params, result any, duringClose bool) error {
	if !c.started.Load() {
		return ErrNotStarted
	}
	var raw []byte
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return fmt.Errorf("turngate: %s: encoding params: %w", method, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("turngate: %s: %w", method, err)
	}
	id := c.nextID.Add(1)
	line := encodeRequest(make([]byte, 0, len(raw)+64+len(method)), id, method, raw)
	if n := len(line) - 1; n > c.cfg.maxMessage {
		return &ProtocolError{Code: "too_large", Method: method, Message: fmt.Sprintf("request is %d bytes, over the %d-byte message limit", n, c.cfg.maxMessage)}
	}
	p := &pendingCall{method: method, ch: make(chan response, 1), onProgress: progressFrom(ctx)}
	c.mu.Lock()
	switch {
	case c.termErr != nil:
		err := c.termErr
		c.mu.Unlock()
		return err
	case c.closing && !duringClose:
		c.mu.Unlock()
		return ErrClosed
	}
	c.pending[id] = p
	c.mu.Unlock()

	select {
	case c.writeCh <- line:
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("turngate: %s: %w", method, ctx.Err())
	case <-c.done:
		// supervise has failed every pending call, ours included
	}
	select {
	case r := <-p.ch:
		if r.err != nil {
			return r.err
		}
		return decodeResult(method, r.result, result)
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("turngate: %s: %w", method, ctx.Err())
	}
}

// forget drops a pending call whose caller gave up; a late response is then ignored.
func (c *Client) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// take removes and returns the pending call for id, or nil.
func (c *Client) take(id uint64) *pendingCall {
	c.mu.Lock()
	p := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	return p
}

// setFatal records a stream-level protocol violation and kills the bridge; supervise then
// fails every pending call with it.
func (c *Client) setFatal(err error) {
	c.mu.Lock()
	if c.fatal == nil {
		c.fatal = err
	}
	c.mu.Unlock()
	c.kill()
}

func (c *Client) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Kill() // fails only when the process already ended
	}
}

// waitLoop reaps the process (no zombie) and records how it ended.
func (c *Client) waitLoop() {
	err := c.cmd.Wait()
	c.exitCode, c.exitSignal = 0, ""
	if st := c.cmd.ProcessState; st != nil {
		c.exitCode = st.ExitCode()
		if ws, ok := st.Sys().(interface {
			Signaled() bool
			Signal() syscall.Signal
		}); ok && ws.Signaled() {
			c.exitSignal = ws.Signal().String()
		}
	} else if err != nil {
		c.exitCode = -1
	}
	close(c.exited)
}

// supervise waits for the reader and the process to finish (killing a process whose stdout
// closed, and unblocking a reader whose process exited), then fails every pending call
// with the terminal error and closes done.
func (c *Client) supervise() {
	select {
	case <-c.readerDone:
		select {
		case <-c.exited:
		case <-time.After(c.cfg.shutdownGrace):
			c.kill()
			<-c.exited
		}
	case <-c.exited:
		select {
		case <-c.readerDone:
		case <-time.After(time.Second): // a grandchild still holds stdout open
			_ = c.stdout.Close()
			<-c.readerDone
		}
	}
	_ = c.stdout.Close()

	c.mu.Lock()
	switch {
	case c.fatal != nil:
		c.termErr = c.fatal
	case c.closing:
		c.termErr = ErrClosed
	default:
		c.termErr = c.exitError()
	}
	pending := c.pending
	c.pending = map[uint64]*pendingCall{}
	err := c.termErr
	c.mu.Unlock()
	for _, p := range pending {
		p.ch <- response{err: err}
	}
	close(c.done)
}

// exitError describes how the process ended; call only after exited is closed.
func (c *Client) exitError() *BridgeError {
	what := fmt.Sprintf("the turngate bridge exited with code %d", c.exitCode)
	if c.exitSignal != "" {
		what = "the turngate bridge was killed by signal " + c.exitSignal
	}
	return &BridgeError{Code: "bridge_exited", Message: what, ExitCode: c.exitCode, Signal: c.exitSignal, Stderr: c.stderr.String()}
}

// Close shuts the bridge down: it sends the shutdown request, closes the bridge's stdin,
// waits for it to exit for the shutdown grace period (WithShutdownGrace, default 3 s from
// the start of Close), kills it if it is still running, and reaps it. Calls still pending
// fail with ErrClosed. Close is idempotent and safe to call concurrently. It returns nil
// after a clean exit (code 0); otherwise the protocol violation that ended the client or a
// *BridgeError ("bridge_exited") describing the abnormal exit.
func (c *Client) Close() error {
	if !c.started.Load() {
		return nil
	}
	c.closeOnce.Do(func() {
		deadline := time.Now().Add(c.cfg.shutdownGrace)
		c.mu.Lock()
		c.closing = true
		alive := c.termErr == nil
		c.mu.Unlock()
		if alive {
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			_ = c.call(ctx, "shutdown", nil, nil, true) // older bridges may not know it; EOF follows
			cancel()
			close(c.stopWrite)
			select {
			case <-c.done:
			case <-time.After(time.Until(deadline)):
				c.kill()
			}
		}
		<-c.done
		c.mu.Lock()
		fatal := c.fatal
		c.mu.Unlock()
		switch {
		case fatal != nil:
			c.closeErr = fatal
		case c.exitCode != 0 || c.exitSignal != "":
			c.closeErr = c.exitError()
		}
	})
	return c.closeErr
}
