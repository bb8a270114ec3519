package turngate

import (
	"context"
	"encoding/json"
)

type progressKey struct{}

// WithProgress returns a context that routes the bridge's "progress" notifications for the
// call made with it ({request_id, event, …}, e.g. each check of session.verify_commands
// starting and finishing) to fn instead of the client's notification handler. fn runs on
// the client's reader goroutine: return quickly and do not call the Client from it.
func WithProgress(ctx context.Context, fn func(Notification)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

func progressFrom(ctx context.Context) func(Notification) {
	fn, _ := ctx.Value(progressKey{}).(func(Notification))
	return fn
}

// notify delivers a notification: to the pending call named by params.request_id when that
// call asked for progress, else to the client-wide handler.
func (c *Client) notify(n Notification) {
	var target struct {
		RequestID json.RawMessage `json:"request_id"`
	}
	handler := c.cfg.onNotify
	if json.Unmarshal(n.Params, &target) == nil {
		if id, ok := parseID(target.RequestID); ok {
			c.mu.Lock()
			if p := c.pending[id]; p != nil && p.onProgress != nil {
				handler = p.onProgress
			}
			c.mu.Unlock()
		}
	}
	if handler != nil {
		handler(n)
	}
}
