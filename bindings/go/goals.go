package turngate

import "context"

// AcceptanceProblemReason is an enum of the wire (the parity test compares Values with the schema).
type AcceptanceProblemReason string

// Values lists every allowed value.
func (AcceptanceProblemReason) Values() []string {
	return []string{"missing_assert", "unterminated_backtick", "empty_assert", "path_not_allowed"}
}

// GoalAchievementReason is an enum of the wire (the parity test compares Values with the schema).
type GoalAchievementReason string

// Values lists every allowed value.
func (GoalAchievementReason) Values() []string {
	return []string{"achieved", "not_claimed", "evidence_insufficient", "acceptance_unmet"}
}

// VerifierPolicyRule is an enum of the wire (the parity test compares Values with the schema).
type VerifierPolicyRule string

// Values lists every allowed value.
func (VerifierPolicyRule) Values() []string {
	return []string{"writer_tool", "shell_redirect", "shell_rm", "shell_mv", "shell_tee", "shell_changed_paths", "git_checkout", "git_branch_create", "git_stash", "git_worktree"}
}

// GoalReadReason is an enum of the wire (the parity test compares Values with the schema).
type GoalReadReason string

// Values lists every allowed value.
func (GoalReadReason) Values() []string {
	return []string{"unreadable", "not_utf8", "not_a_regular_file"}
}

// ExistenceStatus is an enum of the wire (the parity test compares Values with the schema).
type ExistenceStatus string

// Values lists every allowed value.
func (ExistenceStatus) Values() []string {
	return []string{"match", "mismatch", "no_recorded_content", "not_mutated", "outside"}
}

// AcceptanceProblem is a criterion line of ACCEPTANCE.md that could not be read.
type AcceptanceProblem struct {
	Line    int                     `json:"line"`
	Reason  AcceptanceProblemReason `json:"reason"`
	Message string                  `json:"message"`
}

// AcceptanceCriteria are the machine criteria of one ACCEPTANCE.md
// (a3s-completion-gate.md §2.14): required commands with ids acceptance:<loop_id>:<line>.
type AcceptanceCriteria struct {
	LoopID   string                `json:"loop_id"`
	Commands []VerificationCommand `json:"commands"`
	Problems []AcceptanceProblem   `json:"problems"`
}

// LoopStatus is the status a goal loop's STATE.md names (nil when none) and whether the
// loop is active (running, retrying or paused).
type LoopStatus struct {
	Status *string `json:"status"`
	Active bool    `json:"active"`
}

// GoalLoop is one active goal loop of a workspace.
type GoalLoop struct {
	LoopID   string                `json:"loop_id"`
	Path     string                `json:"path"`
	Status   string                `json:"status"`
	Commands []VerificationCommand `json:"commands"`
	Problems []AcceptanceProblem   `json:"problems"`
}

// GoalReadProblem is a goal file that could not be read (its loop is skipped).
type GoalReadProblem struct {
	Path    string         `json:"path"`
	Reason  GoalReadReason `json:"reason"`
	Message string         `json:"message"`
}

// GoalCriteria are the goal criteria of a session's turn (session.goal_criteria).
type GoalCriteria struct {
	Loops      []GoalLoop            `json:"loops"`
	Commands   []VerificationCommand `json:"commands"`
	Unreadable []GoalReadProblem     `json:"unreadable"`
}

// GoalAchievement is the answer of goal-achievement gating (a3s-completion-gate.md §2.15).
// Reason is achieved, not_claimed, evidence_insufficient (the claim never suffices alone)
// or acceptance_unmet (UnmetLoops lists the loops without a passing criterion).
type GoalAchievement struct {
	Achieved   bool                  `json:"achieved"`
	Reason     GoalAchievementReason `json:"reason"`
	UnmetLoops []string              `json:"unmet_loops"`
}

// ExistenceCheck is one existence check of a bash command: the path as written, the
// workspace path it names (nil outside the root) and Status match, mismatch,
// no_recorded_content, not_mutated or outside.
type ExistenceCheck struct {
	Path       string          `json:"path"`
	LedgerPath *string         `json:"ledger_path"`
	Status     ExistenceStatus `json:"status"`
}

// ExistenceEvidence is what the existence checks of one bash command did (sessions with
// ExistenceEvidence on): the reports now bound and the shell:mutation_path_verify reports made.
type ExistenceEvidence struct {
	Checks      []ExistenceCheck     `json:"checks"`
	Bound       []VerificationReport `json:"bound"`
	Synthesized []VerificationReport `json:"synthesized"`
}

// VerifierPolicyDecision is the read-only verifier's tool policy for one call
// (a3s-completion-gate.md §2.18): Allowed, else the Rule that refused it and a Message.
type VerifierPolicyDecision struct {
	Allowed bool                `json:"allowed"`
	Rule    *VerifierPolicyRule `json:"rule,omitempty"`
	Message *string             `json:"message,omitempty"`
}

// GateFoldParams are the params of gate.fold.
type GateFoldParams struct {
	Terminals []CompletionTerminal `json:"terminals"`
}

// EvidenceAcceptanceCriteriaParams are the params of evidence.acceptance_criteria.
type EvidenceAcceptanceCriteriaParams struct {
	LoopID string `json:"loop_id"`
	Text   string `json:"text"`
}

// EvidenceLoopStatusParams are the params of evidence.loop_status.
type EvidenceLoopStatusParams struct {
	State string `json:"state"`
}

// CriterionID names one acceptance command (only its id is read by goal gating).
type CriterionID struct {
	ID string `json:"id"`
}

// EvidenceGoalAchievementParams are the params of evidence.goal_achievement.
type EvidenceGoalAchievementParams struct {
	LLMAchieved bool                 `json:"llm_achieved"`
	Reports     []VerificationReport `json:"reports,omitzero"`
	Criteria    []CriterionID        `json:"criteria,omitzero"`
}

// EvidenceExistenceChecksParams are the params of evidence.existence_checks.
type EvidenceExistenceChecksParams struct {
	Command string `json:"command"`
}

// EvidenceExistenceChecksResult is the result of evidence.existence_checks.
type EvidenceExistenceChecksResult struct {
	Paths []string `json:"paths"`
}

// EvidenceVerifierToolPolicyParams are the params of evidence.verifier_tool_policy.
type EvidenceVerifierToolPolicyParams struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitzero"`
}

// SessionGoalAchievementParams are the params of session.goal_achievement (without session_id).
type SessionGoalAchievementParams struct {
	LLMAchieved bool `json:"llm_achieved"`
}

// FoldStepCompletions folds the completion terminals of several plan steps into one
// (gate.fold; a3s-completion-gate.md §2.10): narrative and duplicates dropped; several
// sharing one digest → verified if any is, else the first; otherwise distinct.
func (c *Client) FoldStepCompletions(ctx context.Context, terminals []CompletionTerminal) (*CompletionTerminal, error) {
	var r CompletionTerminal
	if err := c.Call(ctx, "gate.fold", GateFoldParams{Terminals: orEmpty(terminals)}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AcceptanceCriteria parses one ACCEPTANCE.md text (evidence.acceptance_criteria; §2.14).
func (c *Client) AcceptanceCriteria(ctx context.Context, loopID, text string) (*AcceptanceCriteria, error) {
	var r AcceptanceCriteria
	if err := c.Call(ctx, "evidence.acceptance_criteria", EvidenceAcceptanceCriteriaParams{LoopID: loopID, Text: text}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// LoopStatus reads the status of a goal loop's STATE.md text (evidence.loop_status).
func (c *Client) LoopStatus(ctx context.Context, state string) (*LoopStatus, error) {
	var r LoopStatus
	if err := c.Call(ctx, "evidence.loop_status", EvidenceLoopStatusParams{State: state}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GoalAchievement gates a model's goal claim (evidence.goal_achievement; §2.15): it
// counts only when the host reports support it and every acceptance loop has a passing
// shell:<id> report.
func (c *Client) GoalAchievement(ctx context.Context, params EvidenceGoalAchievementParams) (*GoalAchievement, error) {
	var r GoalAchievement
	if err := c.Call(ctx, "evidence.goal_achievement", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ExistenceChecks returns the paths a shell command checks for existence
// (evidence.existence_checks): test -f|-e P, [ -f|-e P ], [[ -f|-e P ]].
func (c *Client) ExistenceChecks(ctx context.Context, command string) ([]string, error) {
	var r EvidenceExistenceChecksResult
	if err := c.Call(ctx, "evidence.existence_checks", EvidenceExistenceChecksParams{Command: command}, &r); err != nil {
		return nil, err
	}
	return r.Paths, nil
}

// VerifierToolPolicy answers whether the read-only verifier may make one tool call
// (evidence.verifier_tool_policy; §2.18).
func (c *Client) VerifierToolPolicy(ctx context.Context, tool string, args map[string]any) (*VerifierPolicyDecision, error) {
	var r VerifierPolicyDecision
	if err := c.Call(ctx, "evidence.verifier_tool_policy", EvidenceVerifierToolPolicyParams{Tool: tool, Args: args}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GoalCriteria returns the goal criteria of the current turn (session.goal_criteria;
// §2.14), read when the turn started.
func (s *Session) GoalCriteria(ctx context.Context) (*GoalCriteria, error) {
	var r GoalCriteria
	if err := s.call(ctx, "session.goal_criteria", nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GoalAchievement gates a model's goal claim over the turn's reports and criteria
// (session.goal_achievement; §2.15).
func (s *Session) GoalAchievement(ctx context.Context, llmAchieved bool) (*GoalAchievement, error) {
	var r GoalAchievement
	if err := s.call(ctx, "session.goal_achievement", SessionGoalAchievementParams{LLMAchieved: llmAchieved}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
