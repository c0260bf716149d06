package client

import (
	"context"
	"iter"
	"slices"
	"sync"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Listen opens a subscriptions/listen stream for the notifications filter
// selects (SUB-1) and yields, in order, the acknowledgement (whose
// Notifications say what the server honours, SUB-4) and then every
// notification. The iteration ends without error when ctx ends (the
// stream is closed, which cancels it: stdio sends notifications/cancelled,
// HTTP closes the response, SUB-10) or when the server ends the stream
// gracefully; it yields an error when the stream breaks (SUB-12: listen
// again to resubscribe). Change notifications also invalidate cached
// results (CACHE-7). Notifications are queued while the loop body runs,
// so the body may make calls on the same Client.
func (c *Client) Listen(ctx context.Context, filter mcp.SubscriptionFilter, opts ...CallOption) iter.Seq2[*mcp.ServerNotification, error] {
	return func(yield func(*mcp.ServerNotification, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		o := buildOptions(opts)
		// Notifications wait in a queue of their own while the loop body
		// runs: on stdio they arrive on the connection's one reader, which
		// must never wait for this loop (the body may well make calls).
		var (
			mu    sync.Mutex
			queue []*mcp.ServerNotification
			wake  = make(chan struct{}, 1)
		)
		take := func() []*mcp.ServerNotification {
			mu.Lock()
			defer mu.Unlock()
			q := queue
			queue = nil
			return q
		}
		done := make(chan error, 1)
		go func() {
			p := &mcp.SubscriptionsListenRequestParams{Notifications: filter}
			err := c.callListen(ctx, o, p, func(m *jsonrpc.Message) {
				var n mcp.ServerNotification
				if err := wireimpl.Decode(rawNotification(m), &n); err != nil {
					c.log.Warn("ignoring a malformed listen notification", "method", m.Method, "error", err.Error())
					return
				}
				c.cache.onNotification(&n)
				mu.Lock()
				queue = append(queue, &n)
				mu.Unlock()
				select {
				case wake <- struct{}{}:
				default:
				}
			})
			done <- err
		}()
		for {
			select {
			case <-wake:
				for _, n := range take() {
					if !yield(n, nil) {
						return
					}
				}
			case err := <-done:
				for _, n := range take() { // what arrived before the end, in order
					if !yield(n, nil) {
						return
					}
				}
				if err != nil && ctx.Err() == nil {
					yield(nil, err)
				}
				return
			}
		}
	}
}

// callListen sends the listen request; note receives its notifications.
func (c *Client) callListen(ctx context.Context, o *callOptions, p *mcp.SubscriptionsListenRequestParams, note func(*jsonrpc.Message)) error {
	lo := *o
	lo.listenNote = note
	_, err := c.request(ctx, &lo, mcp.MethodSubscriptionsListen, p)
	return err
}

// rawNotification re-encodes a notification message for the generated
// ServerNotification union.
func rawNotification(m *jsonrpc.Message) []byte {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	var params func(*jx.Encoder)
	if m.Params != nil {
		params = func(e *jx.Encoder) { e.Raw(m.Params) }
	}
	jsonrpc.WriteNotification(e, m.Method, params)
	return slices.Clone(e.Bytes())
}
