package turngate

// VerificationCommand is a shell command whose exit status becomes a check
// (a3s-completion-gate.md §1.5). Required defaults to false and ExpectExit to 0 — both are
// always sent, so the Go zero values are the wire defaults (unlike A3S's Go SDK, which had
// no expect_exit). TimeoutMS is in milliseconds; nil means no timeout.
type VerificationCommand struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Command     string `json:"command"`
	Required    bool   `json:"required"`
	TimeoutMS   *int64 `json:"timeout_ms,omitempty"`
	ExpectExit  int    `json:"expect_exit"`
	// Cwd is the folder the command runs in, relative to the workspace root (no ".."
	// segment); nil: the root. Part of the check's identity.
	Cwd *string `json:"cwd,omitempty"`
	// Results declares the command's structured test results (issue #16); nil: none.
	Results *TestResultsDeclaration `json:"results,omitempty"`
}

// TestResultsDeclaration names a command's structured test results: Format, and Source
// "file" ("" too: the command writes them to {results} / $TURNGATE_RESULTS) or "output".
type TestResultsDeclaration struct {
	Format TestResultFormat  `json:"format"`
	Source TestResultsSource `json:"source,omitempty"`
}

// TestResultsSource says where a command's structured test results are read from.
type TestResultsSource string

// Values lists every allowed value (the parity test compares it with the schema).
func (TestResultsSource) Values() []string { return []string{"file", "output"} }

// VerificationPreset is a named list of commands for one project kind
// (a3s-completion-gate.md §1.6, detected per §2.17).
type VerificationPreset struct {
	ID          string                `json:"id"`
	ProjectKind string                `json:"project_kind"`
	Description string                `json:"description"`
	Commands    []VerificationCommand `json:"commands"`
}
