// Package turngate is the Go binding of turngate: it ends a coding agent's turn only when a
// passing verification report is bound to the exact bytes the turn changed (the effect
// digest), or the host waives that digest.
//
// The binding knows only the bridge protocol (docs/design.md §5): Start launches
// `turngate bridge --stdio` and speaks JSON-RPC 2.0 to it, one JSON object per line. A
// *Client is safe for concurrent use; every call takes a context.Context. Stateless methods
// (EffectDigest, DecideCompletion, SummarizeReports, …) live on Client; a host session
// (CreateSession) observes tool results and the workspace, records reports, runs
// verification commands and decides whether the turn may end:
//
//	client, err := turngate.Start(ctx)
//	session, err := client.CreateSession(ctx, turngate.SessionCreateParams{Root: dir})
//	observed, err := session.ObserveTool(ctx, "write", 0, map[string]any{"file_path": "a.go", "after": src})
//	_, err = session.RecordVerificationReports(ctx, []turngate.VerificationReport{{…, EffectDigest: &observed.EffectDigest}})
//	outcome, err := session.Decide(ctx) // allow / verified
//
// Protocol types mirror packages/bridge/schema/protocol.json field by field; Bindings links
// every wire method to its Go method, and the package's parity tests fail on any drift.
// Errors are *BridgeError, *ProtocolError, *InvalidParamsError and *RemoteError.
package turngate
