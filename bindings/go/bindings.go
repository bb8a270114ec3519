package turngate

import "reflect"

// Binding links one bridge wire method to the Go method that calls it, like the Python
// binding's @bridge_method tags. The parity test (parity_test.go) walks this table against
// packages/bridge/schema/protocol.json: every wire method needs exactly one binding; Params
// and Result must match the method's params and result schemas field by field (name, type,
// optionality); the Go method must exist, take either Params itself or Params' fields in
// order (after the context), and return Result, *Result or Result's Unwrap member.
type Binding struct {
	Wire   string       // wire name, e.g. "ledger.digest"
	Go     string       // "Client.EffectDigest" or "Session.ObserveTool"
	Params reflect.Type // params struct (without session_id for Session methods); nil for none
	Result reflect.Type // result struct
	Unwrap string       // json name of the result member the Go method returns, "" for all
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Bindings is every bridge method this package calls, in wire-name order. initialize and
// shutdown are called by Start and Close.
var Bindings = []Binding{
	{Wire: "cache.key", Go: "Client.CacheKey", Params: typeOf[CacheKeyParams](), Result: typeOf[CacheKey]()},
	{Wire: "evidence.acceptance_criteria", Go: "Client.AcceptanceCriteria", Params: typeOf[EvidenceAcceptanceCriteriaParams](), Result: typeOf[AcceptanceCriteria]()},
	{Wire: "evidence.existence_checks", Go: "Client.ExistenceChecks", Params: typeOf[EvidenceExistenceChecksParams](), Result: typeOf[EvidenceExistenceChecksResult](), Unwrap: "paths"},
	{Wire: "evidence.goal_achievement", Go: "Client.GoalAchievement", Params: typeOf[EvidenceGoalAchievementParams](), Result: typeOf[GoalAchievement]()},
	{Wire: "evidence.loop_status", Go: "Client.LoopStatus", Params: typeOf[EvidenceLoopStatusParams](), Result: typeOf[LoopStatus]()},
	{Wire: "evidence.verifier_tool_policy", Go: "Client.VerifierToolPolicy", Params: typeOf[EvidenceVerifierToolPolicyParams](), Result: typeOf[VerifierPolicyDecision]()},
	{Wire: "facts.affected_from_outputs", Go: "Client.AffectedFromOutputs", Params: typeOf[FactsAffectedFromOutputsParams](), Result: typeOf[AffectedTargets]()},
	{Wire: "facts.affected_targets", Go: "Client.AffectedTargets", Params: typeOf[FactsAffectedTargetsParams](), Result: typeOf[AffectedTargets]()},
	{Wire: "facts.code_index_changes_since", Go: "Client.CodeIndexChangesSince", Params: typeOf[FactsCodeIndexChangesSinceParams](), Result: typeOf[CodeIndexChanges]()},
	{Wire: "facts.code_index_file_hash_snapshot", Go: "Client.CodeIndexFileHashSnapshot", Params: typeOf[FactsCodeIndexFileHashSnapshotParams](), Result: typeOf[FileHashSnapshot]()},
	{Wire: "facts.diagnostic_classify", Go: "Client.DiagnosticClassify", Params: typeOf[FactsDiagnosticClassifyParams](), Result: typeOf[DiagnosticClassification]()},
	{Wire: "facts.diagnostic_delta", Go: "Client.DiagnosticDelta", Params: typeOf[FactsDiagnosticDeltaParams](), Result: typeOf[DiagnosticDelta]()},
	{Wire: "facts.file_hash_snapshot", Go: "Client.FileHashSnapshot", Params: typeOf[FactsFileHashSnapshotParams](), Result: typeOf[FileHashSnapshot]()},
	{Wire: "facts.finish_check", Go: "Client.FinishCheck", Params: typeOf[FactsFinishCheckParams](), Result: typeOf[FinishedCheck]()},
	{Wire: "facts.gate_input", Go: "Client.GateInput", Params: typeOf[FactsGateInputParams](), Result: typeOf[GateInput]()},
	{Wire: "facts.hud_model", Go: "Client.HudModel", Params: typeOf[FactsHudModelParams](), Result: typeOf[HudModel]()},
	{Wire: "facts.hud_text", Go: "Client.HudText", Params: typeOf[FactsHudTextParams](), Result: typeOf[FactsHudTextResult](), Unwrap: "text"},
	{Wire: "facts.ladder_plan", Go: "Client.LadderPlan", Params: typeOf[FactsLadderPlanParams](), Result: typeOf[LadderPlan]()},
	{Wire: "facts.observation_from_command_result", Go: "Client.ObservationFromCommandResult", Params: typeOf[FactsObservationParams](), Result: typeOf[CheckObservation]()},
	{Wire: "facts.parse_diagnostics", Go: "Client.ParseDiagnostics", Params: typeOf[FactsParseDiagnosticsParams](), Result: typeOf[ParsedDiagnostics]()},
	{Wire: "facts.parse_test_results", Go: "Client.ParseTestResults", Params: typeOf[FactsParseTestResultsParams](), Result: typeOf[ParsedTestResults]()},
	{Wire: "facts.profile_matches", Go: "Client.ProfileMatches", Params: typeOf[FactsProfileMatchesParams](), Result: typeOf[FactsProfileMatchesResult](), Unwrap: "matches"},
	{Wire: "facts.record_check_result", Go: "Client.RecordCheckResult", Params: typeOf[FactsRecordCheckResultParams](), Result: typeOf[RecordedCheck]()},
	{Wire: "facts.run_check", Go: "Client.RunCheck", Params: typeOf[FactsRunCheckParams](), Result: typeOf[RunCheckResult]()},
	{Wire: "facts.snapshot_staleness", Go: "Client.SnapshotStaleness", Params: typeOf[FactsSnapshotStalenessParams](), Result: typeOf[SnapshotStaleness]()},
	{Wire: "facts.start_check", Go: "Client.StartCheck", Params: typeOf[FactsStartCheckParams](), Result: typeOf[StartedCheck]()},
	{Wire: "facts.start_warm_state", Go: "Client.StartWarmState", Params: typeOf[FactsStartWarmStateParams](), Result: typeOf[WarmStateReceipt]()},
	{Wire: "facts.teardown_warm_state", Go: "Client.TeardownWarmState", Params: typeOf[FactsTeardownWarmStateParams](), Result: typeOf[WarmStateTeardown]()},
	{Wire: "facts.toolchain", Go: "Client.Toolchain", Params: typeOf[FactsToolchainParams](), Result: typeOf[FactsToolchainResult](), Unwrap: "facts"},
	{Wire: "facts.warm_state", Go: "Client.WarmState", Params: typeOf[FactsWarmStateParams](), Result: typeOf[FactsWarmStateResult](), Unwrap: "facts"},
	{Wire: "gate.decide", Go: "Client.DecideCompletion", Params: typeOf[GateDecideParams](), Result: typeOf[GateOutcome]()},
	{Wire: "gate.fold", Go: "Client.FoldStepCompletions", Params: typeOf[GateFoldParams](), Result: typeOf[CompletionTerminal]()},
	{Wire: "initialize", Go: "Client.Start", Params: typeOf[InitializeParams](), Result: typeOf[InitializeResult]()},
	{Wire: "ledger.content_digest", Go: "Client.ContentDigest", Params: typeOf[LedgerContentDigestParams](), Result: typeOf[LedgerContentDigestResult](), Unwrap: "content_digest"},
	{Wire: "ledger.digest", Go: "Client.EffectDigest", Params: typeOf[LedgerDigestParams](), Result: typeOf[LedgerDigestResult](), Unwrap: "effect_digest"},
	{Wire: "proof.verify", Go: "Client.VerifyProof", Params: typeOf[ProofVerifyParams](), Result: typeOf[ProofVerification]()},
	{Wire: "report.derive_status", Go: "Client.DeriveReportStatus", Params: typeOf[ReportDeriveStatusParams](), Result: typeOf[ReportDeriveStatusResult](), Unwrap: "status"},
	{Wire: "report.turn_view", Go: "Client.TurnView", Params: typeOf[ReportTurnViewParams](), Result: typeOf[ReportTurnViewResult](), Unwrap: "view"},
	{Wire: "session.baseline", Go: "Session.Baseline", Result: typeOf[SessionBaselineResult](), Unwrap: "baseline"},
	{Wire: "session.close", Go: "Session.Close", Result: typeOf[Empty]()},
	{Wire: "session.create", Go: "Client.CreateSession", Params: typeOf[SessionCreateParams](), Result: typeOf[SessionCreateResult](), Unwrap: "session_id"},
	{Wire: "session.decide", Go: "Session.Decide", Result: typeOf[GateOutcome]()},
	{Wire: "session.end_turn", Go: "Session.EndTurn", Result: typeOf[TurnEnd]()},
	{Wire: "session.effect_digest", Go: "Session.EffectDigest", Result: typeOf[SessionEffectDigestResult](), Unwrap: "effect_digest"},
	{Wire: "session.goal_achievement", Go: "Session.GoalAchievement", Params: typeOf[SessionGoalAchievementParams](), Result: typeOf[GoalAchievement]()},
	{Wire: "session.goal_criteria", Go: "Session.GoalCriteria", Result: typeOf[GoalCriteria]()},
	{Wire: "session.observe_tool", Go: "Session.ObserveTool", Params: typeOf[SessionObserveToolParams](), Result: typeOf[SessionObserveToolResult]()},
	{Wire: "session.observe_workspace", Go: "Session.ObserveWorkspace", Result: typeOf[SessionObserveWorkspaceResult]()},
	{Wire: "session.presets", Go: "Session.VerificationPresets", Result: typeOf[SessionPresetsResult](), Unwrap: "presets"},
	{Wire: "session.proof", Go: "Session.Proof", Result: typeOf[SessionProofResult](), Unwrap: "proof"},
	{Wire: "session.record_reports", Go: "Session.RecordVerificationReports", Params: typeOf[SessionRecordReportsParams](), Result: typeOf[SessionRecordReportsResult](), Unwrap: "recorded"},
	{Wire: "session.record_observation", Go: "Session.RecordObservation", Params: typeOf[SessionRecordObservationParams](), Result: typeOf[SessionRecordObservationResult](), Unwrap: "observation"},
	{Wire: "session.refused_reports", Go: "Session.RefusedReports", Result: typeOf[SessionRefusedReportsResult](), Unwrap: "refused_reports"},
	{Wire: "session.reports", Go: "Session.VerificationReports", Result: typeOf[SessionReportsResult](), Unwrap: "reports"},
	{Wire: "session.settle_child", Go: "Session.SettleWorkspaceChild", Params: typeOf[SessionSettleChildParams](), Result: typeOf[SessionSettleChildResult]()},
	{Wire: "session.signed_proof", Go: "Session.SignedProof", Params: typeOf[SessionSignedProofParams](), Result: typeOf[SignedProof]()},
	{Wire: "session.summary", Go: "Session.VerificationSummary", Result: typeOf[VerificationSummary]()},
	{Wire: "session.summary_text", Go: "Session.VerificationSummaryText", Result: typeOf[VerificationSummaryTextResult](), Unwrap: "text"},
	{Wire: "session.verifier_run", Go: "Session.VerifierRun", Result: typeOf[SessionVerifierRunResult](), Unwrap: "verifier_run"},
	{Wire: "session.verify_commands", Go: "Session.VerifyCommands", Params: typeOf[SessionVerifyCommandsParams](), Result: typeOf[SessionVerifyCommandsResult]()},
	{Wire: "shutdown", Go: "Client.Close", Result: typeOf[Empty]()},
	{Wire: "verification.summary", Go: "Client.SummarizeReports", Params: typeOf[VerificationSummaryParams](), Result: typeOf[VerificationSummary]()},
	{Wire: "verification.summary_text", Go: "Client.FormatVerificationSummary", Params: typeOf[VerificationSummaryTextParams](), Result: typeOf[VerificationSummaryTextResult](), Unwrap: "text"},
	{Wire: "waiver.validate", Go: "Client.ValidateWaiver", Params: typeOf[WaiverValidateParams](), Result: typeOf[WaiverValidation]()},
}
