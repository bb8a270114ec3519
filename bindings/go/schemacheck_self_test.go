package turngate

import (
	"reflect"
	"strings"
	"testing"
)

// The parity checker must catch the drift A3S's Go SDK shipped (a3s-completion-gate.md §6:
// its VerificationReport had no effect_digest, its VerificationCommand no expect_exit), and
// the subtler optionality mistakes. These structs reproduce them; the checker runs on the
// real protocol.json schemas and must report exactly these problems.

type a3sStyleReport struct {
	Schema        string              `json:"schema"`
	Subject       string              `json:"subject"`
	Status        string              `json:"status"`
	Checks        []VerificationCheck `json:"checks"`
	ResidualRisks []string            `json:"residual_risks,omitempty"`
}

type a3sStyleCommand struct {
	ID          string                  `json:"id"`
	Kind        string                  `json:"kind"`
	Description string                  `json:"description"`
	Command     string                  `json:"command"`
	Required    bool                    `json:"required"`
	TimeoutMS   *uint64                 `json:"timeout_ms,omitempty"`
	Results     *TestResultsDeclaration `json:"results,omitempty"`
	Cwd         *string                 `json:"cwd,omitempty"`
}

type lossyCheck struct {
	ID             string             `json:"id"`
	Kind           string             `json:"kind"`
	Description    string             `json:"description,omitempty"`
	Status         VerificationStatus `json:"status"`
	Required       *bool              `json:"required"`
	SuggestedTools []string           `json:"suggested_tools"`
	EvidenceURIs   []string           `json:"evidence_uris,omitempty"`
	ResidualRisk   string             `json:"residual_risk,omitempty"`
	Extra          int                `json:"extra"`
	Tests          *CheckTestCounts   `json:"tests,omitempty"`
	FailingTests   []string           `json:"failing_tests,omitzero"`
	FailureClass   *CheckFailureClass `json:"failure_class,omitempty"`
}

func itemsOf(t *testing.T, doc map[string]any, method, param string) schema {
	t.Helper()
	m := protocolMethods(t, doc)[method]
	params, _ := m["params"].(map[string]any)
	props, _ := params["properties"].(map[string]any)
	p, _ := props[param].(map[string]any)
	items, _ := p["items"].(map[string]any)
	if items == nil {
		t.Fatalf("%s params.%s has no items schema", method, param)
	}
	return items
}

func TestSchemaCheckerCatchesDrift(t *testing.T) {
	doc := loadProtocol(t)
	cases := []struct {
		name string
		typ  reflect.Type
		s    schema
		want []string
	}{
		{"A3S report without effect_digest", reflect.TypeFor[a3sStyleReport](), itemsOf(t, doc, "session.record_reports", "reports"), []string{
			`r: schema property "effect_digest" has no Go field in turngate.a3sStyleReport`,
			`r.residual_risks: optional, but omitempty on Go field ResidualRisks also drops [], which the schema tells apart from absent (use omitzero)`,
			`r.schema: optional, but Go field Schema is always sent and its zero value "" is not the schema default (use a pointer with omitempty)`,
			`r.schema: schema enum ["verification_report.v1" "a3s.verification_report.v1"] needs a named Go type with Values(), Go has string`,
			`r.status: schema enum ["passed" "failed" "needs_review" "skipped"] needs a named Go type with Values(), Go has string`,
		}},
		{"A3S command without expect_exit", reflect.TypeFor[a3sStyleCommand](), itemsOf(t, doc, "session.verify_commands", "commands"), []string{
			`r: schema property "expect_exit" has no Go field in turngate.a3sStyleCommand`,
		}},
		{"lossy optionality", reflect.TypeFor[lossyCheck](), itemsOf(t, doc, "report.derive_status", "checks"), []string{
			`r: Go field lossyCheck.Extra (json "extra") is not in the schema`,
			`r.description: required, but omitempty on Go field Description would drop the valid value ""`,
			`r.evidence_uris: optional, but omitempty on Go field EvidenceURIs also drops [], which the schema tells apart from absent (use omitzero)`,
			`r.required: optional, but Go field Required is a pointer without omitempty (nil is sent as null)`,
			`r.residual_risk: optional without a default of "": omitempty on Go field ResidualRisk would make the valid value "" indistinguishable from absent (use a pointer)`,
			`r.suggested_tools: optional, but Go field SuggestedTools has no omitzero (nil is sent as null)`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := &schemaChecker{root: doc}
			k.checkType("r", tc.typ, tc.s)
			if got, want := strings.Join(k.errs, "\n"), strings.Join(tc.want, "\n"); got != want {
				t.Fatalf("checker reported\n%s\nwant\n%s", got, want)
			}
		})
	}
	t.Run("the real types pass the same schemas", func(t *testing.T) {
		k := &schemaChecker{root: doc}
		k.checkType("report", reflect.TypeFor[VerificationReport](), itemsOf(t, doc, "session.record_reports", "reports"))
		k.checkType("command", reflect.TypeFor[VerificationCommand](), itemsOf(t, doc, "session.verify_commands", "commands"))
		k.checkType("check", reflect.TypeFor[VerificationCheck](), itemsOf(t, doc, "report.derive_status", "checks"))
		if len(k.errs) != 0 {
			t.Fatal(strings.Join(k.errs, "\n"))
		}
	})
}
