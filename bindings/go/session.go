package turngate

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// Session is a host session in the bridge (from Client.CreateSession): a mutation ledger,
// recorded reports and host waivers over one workspace root. Its methods mirror the Python
// binding's Session (observe_tool → ObserveTool, record_verification_reports →
// RecordVerificationReports, …); each wraps one session.* wire method (bindings.go) and
// sends the session's ID as session_id. A Session is safe for concurrent use; its errors
// are those of Client.Call, plus *RemoteError "session_not_found" once it is closed.
type Session struct {
	ID     string // the bridge's session id, e.g. "session-1"
	client *Client
	closed atomic.Bool
}

// call sends method with params (nil for none) plus this session's session_id.
func (s *Session) call(ctx context.Context, method string, params, result any) error {
	return s.client.Call(ctx, method, sessionParams{id: s.ID, params: params}, result)
}

// sessionParams encodes params with "session_id" added as the first member.
type sessionParams struct {
	id     string
	params any
}

// MarshalJSON writes {"session_id": id, …params}; params must encode as an object.
func (p sessionParams) MarshalJSON() ([]byte, error) {
	id, err := json.Marshal(p.id)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"session_id":`), id...)
	if p.params == nil {
		return append(out, '}'), nil
	}
	rest, err := json.Marshal(p.params)
	if err != nil {
		return nil, err
	}
	if len(rest) < 2 || rest[0] != '{' {
		return nil, fmt.Errorf("turngate: session params must encode as a JSON object, got %.40s", rest)
	}
	if len(rest) == 2 { // {}
		return append(out, '}'), nil
	}
	out = append(out, ',')
	return append(out, rest[1:]...), nil
}

// ObserveTool observes one tool result into the ledger (session.observe_tool;
// a3s-completion-gate.md §2.1): a successful write, edit, patch or download records its
// path and content digest; nested effects, changed_paths of a failed command and
// workspace children are honoured. metadata is the tool's metadata ({"path", "after", …};
// nil sends none). It returns the rows added and the ledger's effect digest afterwards
// ("" while empty).
func (s *Session) ObserveTool(ctx context.Context, tool string, exitCode int, metadata map[string]any) (*SessionObserveToolResult, error) {
	var r SessionObserveToolResult
	if err := s.call(ctx, "session.observe_tool", SessionObserveToolParams{Tool: tool, ExitCode: exitCode, Metadata: metadata}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ObserveWorkspace re-reads the workspace against the session's baseline
// (session.observe_workspace) and rebuilds the ledger: changed paths join it with the
// SHA-256 of their bytes ("deleted" for a deletion). It returns the changes, whether the
// observation was complete, and the effect digest afterwards.
func (s *Session) ObserveWorkspace(ctx context.Context) (*SessionObserveWorkspaceResult, error) {
	var r SessionObserveWorkspaceResult
	if err := s.call(ctx, "session.observe_workspace", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SettleWorkspaceChild tells the session that the background workspace task taskID has
// finished (session.settle_child; a3s-completion-gate.md §2.4). A tool result whose
// metadata held {"workspace_child": taskID} opened it, and Decide answers open_children
// until it is settled. The child leaves the open children for good (later re-reads do not
// reopen it; a later tool result naming the same id opens a new child) and the workspace is
// re-read at once, so the child's writes join the ledger. Settled is false when no open
// child had that id. A blank taskID is *InvalidParamsError with Path "task_id".
func (s *Session) SettleWorkspaceChild(ctx context.Context, taskID string) (*SessionSettleChildResult, error) {
	var r SessionSettleChildResult
	if err := s.call(ctx, "session.settle_child", SessionSettleChildParams{TaskID: taskID}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RecordVerificationReports records host verification reports (session.record_reports)
// and returns how many were recorded. A report whose status differs from the status
// derived from its checks is refused — *RemoteError "report_status_mismatch" with Path
// "reports.N.status" — and then nothing is recorded.
func (s *Session) RecordVerificationReports(ctx context.Context, reports []VerificationReport) (int, error) {
	var r SessionRecordReportsResult
	err := s.call(ctx, "session.record_reports", SessionRecordReportsParams{Reports: orEmpty(reports)}, &r)
	return r.Recorded, err
}

// VerificationReports returns every report recorded in the session, in recording order
// (session.reports).
func (s *Session) VerificationReports(ctx context.Context) ([]VerificationReport, error) {
	var r SessionReportsResult
	err := s.call(ctx, "session.reports", nil, &r)
	return r.Reports, err
}

// VerificationSummary returns the verification summary over the session's reports
// (session.summary; a3s-completion-gate.md §1.4).
func (s *Session) VerificationSummary(ctx context.Context) (*VerificationSummary, error) {
	var r VerificationSummary
	if err := s.call(ctx, "session.summary", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// VerificationSummaryText returns the one-line summary text over the session's reports
// (session.summary_text; a3s-completion-gate.md §2.19).
func (s *Session) VerificationSummaryText(ctx context.Context) (string, error) {
	var r VerificationSummaryTextResult
	err := s.call(ctx, "session.summary_text", nil, &r)
	return r.Text, err
}

// VerificationPresets returns the verification presets detected at the workspace root
// (session.presets; a3s-completion-gate.md §2.17).
func (s *Session) VerificationPresets(ctx context.Context) ([]VerificationPreset, error) {
	var r SessionPresetsResult
	err := s.call(ctx, "session.presets", nil, &r)
	return r.Presets, err
}

// VerifyCommands runs params.Commands one after another and records the resulting report
// under params.Subject (session.verify_commands; zero commands give a skipped report). With
// params.Bind the report is bound to the effect digest: in place, when the workspace is
// unchanged across the checks (else Binding.Reason "workspace_changed_during_check"); in
// the clean room, to the bytes copied there (docs/design.md §3b). params.Isolation
// overrides the session's isolation for this call; the result's Isolation says where the
// checks ran. It returns the report, the binding and one CommandRun
// per command. Pass a context from WithProgress to receive check_started and
// check_finished events. Cancelling ctx abandons the wait; the bridge finishes the
// commands (close the session to kill them).
func (s *Session) VerifyCommands(ctx context.Context, params SessionVerifyCommandsParams) (*SessionVerifyCommandsResult, error) {
	var r SessionVerifyCommandsResult
	params.Commands = orEmpty(params.Commands)
	if err := s.call(ctx, "session.verify_commands", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// EffectDigest returns the ledger's current effect digest ("" while empty)
// (session.effect_digest).
func (s *Session) EffectDigest(ctx context.Context) (string, error) {
	var r SessionEffectDigestResult
	err := s.call(ctx, "session.effect_digest", nil, &r)
	return r.EffectDigest, err
}

// Baseline returns the current turn's baseline (session.baseline; docs/cli.md "Gapless turns"):
// after EndTurn ended a turn, the state that turn was judged on; while a turn is open, that
// turn's baseline. Pass it as SessionOptions.ContinueFrom of a later session (another bridge
// process, a restarted host) so no change made between the two sessions is dropped. It holds
// one entry per file; keep it where the agent cannot write it.
func (s *Session) Baseline(ctx context.Context) (map[string]any, error) {
	var r SessionBaselineResult
	err := s.call(ctx, "session.baseline", nil, &r)
	return r.Baseline, err
}

// Decide runs the completion gate over the session's ledger, reports and waivers
// (session.decide; a3s-completion-gate.md §2.7); the host attestor, when set, runs first.
// The outcome is kept for Proof.
func (s *Session) Decide(ctx context.Context) (*GateOutcome, error) {
	var r GateOutcome
	if err := s.call(ctx, "session.decide", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// EndTurn ends the turn (session.end_turn; issue 13, a3s-completion-gate.md §1.17): the
// bridge re-reads the workspace and decides. Allowed: Ended is true, Result carries the
// completion terminal and the summary counts and text over the turn's own reports, and the
// next turn begins with a fresh baseline and an empty ledger (the session keeps its reports,
// but none is a gate input of a later turn). Refused: Ended is false, Outcome says why, and
// the turn stays open.
func (s *Session) EndTurn(ctx context.Context) (*TurnEnd, error) {
	var r TurnEnd
	if err := s.call(ctx, "session.end_turn", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RefusedReports returns every report tool results carried that was refused in this
// session, in order (session.refused_reports).
func (s *Session) RefusedReports(ctx context.Context) ([]RefusedReport, error) {
	var r SessionRefusedReportsResult
	if err := s.call(ctx, "session.refused_reports", nil, &r); err != nil {
		return nil, err
	}
	return r.RefusedReports, nil
}

// Proof returns the session's turn_proof.v1 (session.proof; docs/design.md §3 "Proof").
func (s *Session) Proof(ctx context.Context) (*TurnProof, error) {
	var r SessionProofResult
	if err := s.call(ctx, "session.proof", nil, &r); err != nil {
		return nil, err
	}
	return &r.Proof, nil
}

// Close closes the session (session.close): running checks are killed (their calls fail
// with *RemoteError "session_closed") and the id becomes unknown. Closing twice is a no-op.
func (s *Session) Close(ctx context.Context) error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := s.call(ctx, "session.close", nil, &Empty{}); err != nil {
		s.closed.Store(false) // let the caller retry
		return err
	}
	return nil
}
