package turngate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// Verification facts through the real bridge (issue 7 item 4), with exact values.
// FNV-1a 64 values are Harn's reference vectors (harn-verification.md §3.1) or fnv1a64
// below, the §3.1 loop written out independently of the bridge; every other expected
// value is derived by hand from §1.2, §1.5, §1.11, §1.12, §3.7 and docs/design.md §4.

const (
	fnvEmpty      = "14695981039346656037"
	fnvHelloWorld = "8618312879776256743"
	ts2322        = "Type 'string' is not assignable to type 'number'."
	// §3.7: the code, then the message, joined by a space and lowercased.
	sigTS2322 = "ts2322 type 'string' is not assignable to type 'number'."
	sigTS2304 = "ts2304 cannot find name 'foo'."
)

// fnv1a64 is harn-verification.md §3.1 by hand: XOR each byte in, multiply by the prime
// (uint64 arithmetic wraps mod 2^64), print in decimal.
func fnv1a64(data []byte) string {
	h := uint64(0xcbf29ce484222325)
	for _, b := range data {
		h ^= uint64(b)
		h *= 0x100000001b3
	}
	return strconv.FormatUint(h, 10)
}

func ptr[T any](v T) *T { return &v }

func mustEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

func asAnyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestFactsHandRolledFNVMatchesHarnVectors(t *testing.T) {
	mustEqual(t, "fnv", []string{fnv1a64(nil), fnv1a64([]byte("hello world"))}, []string{fnvEmpty, fnvHelloWorld})
}

func TestFactsFileHashSnapshotThenStalenessAfterAnEdit(t *testing.T) {
	c := realClient(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "hello world")
	writeFile(t, dir, "b.txt", "héllo")
	bound, err := c.FileHashSnapshot(t.Context(), dir, []string{"a.txt", "b.txt", "gone.txt"}, "")
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "algorithm, missing", []any{bound.Algorithm, bound.Missing}, []any{HashFNV1a64, []string{"gone.txt"}})
	mustEqual(t, "snapshot", bound.Snapshot, map[string]string{"a.txt": fnvHelloWorld, "b.txt": fnv1a64([]byte("héllo"))})
	mustEqual(t, "gone.txt entry", bound.Files[2], FileHashSnapshotEntry{Path: "gone.txt", HashSource: "missing"})
	mustEqual(t, "a.txt size", *bound.Files[0].Size, int64(11))

	if err := os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	current, err := c.FileHashSnapshot(t.Context(), dir, []string{"a.txt", "b.txt"}, HashFNV1a64)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "current snapshot", current.Snapshot, map[string]string{"a.txt": fnvHelloWorld, "b.txt": fnvEmpty})
	stale, err := c.SnapshotStaleness(t.Context(), asAnyMap(bound.Snapshot), asAnyMap(current.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "staleness", *stale, SnapshotStaleness{
		Schema:          "harn.verification.snapshot_staleness.v1",
		Status:          BindingBoundStale,
		Stale:           true,
		StaleFilesCamel: []string{"b.txt"},
		StaleFiles:      []string{"b.txt"},
		ChangedFiles:    []string{"b.txt"},
		Advisory:        true,
		Reason:          "snapshot superseded or unverifiable for 1 file(s); re-check before trusting",
	})

	sha, err := c.FileHashSnapshot(t.Context(), dir, []string{"a.txt"}, HashSHA256)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sha256", sha.Snapshot["a.txt"], sha256Hex("hello world"))
	var ip *InvalidParamsError
	if _, err := c.FileHashSnapshot(t.Context(), dir, nil, ""); !errors.As(err, &ip) || ip.Path != "paths" {
		t.Errorf("no paths: err = %v, want invalid_params at paths", err)
	}
}

func TestFactsDiagnosticClassifyComparesHashesAsTypedJSON(t *testing.T) {
	c := realClient(t)
	got, err := c.DiagnosticClassify(t.Context(),
		map[string]any{"rung": " R2 ", "rowId": "row-1", "at": 1700000000, "snapshot": map[string]any{"a.ts": "1", "b.ts": "2"}},
		map[string]any{"a.ts": "1", "b.ts": 2})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "classification", *got, DiagnosticClassification{
		Rung:       ptr("R2"),
		RowID:      "row-1",
		Status:     BindingBoundStale,
		StaleFiles: []string{"b.ts"},
		Advisory:   true,
		Reason:     "snapshot superseded for 1 file(s); re-check before trusting",
	})
}

func TestFactsTwoParsedTscOutputsAreAnAdvancedDelta(t *testing.T) {
	c := realClient(t)
	before, err := c.ParseDiagnostics(t.Context(), FormatTsc,
		"src/a.ts(3,5): error TS2322: "+ts2322+"\nsrc/b.ts(10,1): error TS2304: Cannot find name 'foo'.\n")
	if err != nil {
		t.Fatal(err)
	}
	// b.ts fixed, a blank line inserted above a.ts's error (now line 4).
	after, err := c.ParseDiagnostics(t.Context(), FormatTsc, "\nsrc/a.ts(4,5): error TS2322: "+ts2322+"\nFound 1 error.\n")
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "after", *after, ParsedDiagnostics{
		Schema: "turngate.parsed_diagnostics.v1",
		Format: FormatTsc,
		Diagnostics: []ParsedDiagnostic{{
			Path: ptr("src/a.ts"), Line: ptr(4), Column: ptr(5), Severity: SeverityError,
			Code: ptr("TS2322"), Message: ts2322, Source: "tsc",
		}},
		Unparsed: []UnparsedInput{{Line: ptr(3), Text: "Found 1 error.", Reason: "not a tsc --pretty false diagnostic line"}},
	})
	delta, err := c.DiagnosticDelta(t.Context(), before, after, DiagnosticDeltaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes, no, four := ptr(true), ptr(false), float64(4000)
	mustEqual(t, "delta", *delta, DiagnosticDelta{
		Schema:          "harn.verification.diagnostic_delta.v1",
		Status:          DeltaAdvanced,
		ProgressCredit:  true,
		FeedsGatesCamel: true,
		FeedsGates:      true,
		Reason:          "diagnostic_signature_set_changed",
		Previous:        DeltaSide{Count: 2, FeedsGatesCamel: true, FeedsGates: true, Signatures: []string{sigTS2304, sigTS2322}},
		Current:         DeltaSide{Count: 1, FeedsGatesCamel: true, FeedsGates: true, Signatures: []string{sigTS2322}},
		Removed:         []string{sigTS2304},
		Added:           []string{},
		Persisted:       []string{sigTS2322},
		Normalization: DiagnosticNormalization{
			Lowercase: yes, StripANSI: yes, StripLocations: yes, StripTempPaths: yes, CollapseWhitespace: yes,
			IncludePath: no, IncludeCode: yes, IncludeSeverity: no, MaxChars: four,
			Replacements: []any{}, IgnorePatterns: []any{}, StripPatterns: []any{},
		},
		CountDelta: ptr(-1),
	})
}

func TestFactsGateInputLowerRungGreenIsAdvisory(t *testing.T) {
	c := realClient(t)
	hashes := map[string]any{"src/a.ts": "12"}
	failure := map[string]any{"rung": "R3", "at": "t1", "snapshot": hashes,
		"diagnostics": []any{map[string]any{"code": "TS2322", "message": ts2322}}}
	green := map[string]any{"rung": "R1", "at": "t2", "snapshot": hashes, "success": true}
	gate, err := c.GateInput(t.Context(), failure, green, hashes, DiagnosticDeltaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Delta: cleared with credit (success over a fresh gate-bearing failure); rank 1 < 3.
	mustEqual(t, "verdict",
		[]any{gate.Status, gate.Reason, gate.FeedsGates, gate.ProgressCredit, gate.GateBearingFailure, gate.BlocksCompletion, gate.Delta.Status},
		[]any{"advisory", "lower_rung_green", false, false, true, true, DeltaCleared})
	mustEqual(t, "rung comparison", gate.RungComparison, RungComparison{
		PreviousRung: ptr("R3"), CurrentRung: ptr("R1"), PreviousRank: ptr(3), CurrentRank: ptr(1), Outcome: RungLower,
	})
	green["rung"] = "R5"
	higher, err := c.GateInput(t.Context(), failure, green, hashes, DiagnosticDeltaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "higher rung", []any{higher.Status, higher.ProgressCredit, higher.RungComparison.Outcome},
		[]any{"cleared", true, RungSameOrHigher})
}

func TestFactsBadInputsAreTypedErrors(t *testing.T) {
	c := realClient(t)
	var re *RemoteError
	_, err := c.DiagnosticDelta(t.Context(), nil, "x", DiagnosticDeltaOptions{Replacements: []any{map[string]any{"pattern": "(?<=a)b"}}})
	if !errors.As(err, &re) || re.Code != "invalid_regex" || re.Path != "options.replacements.0.pattern" {
		t.Errorf("look-around: err = %v, want invalid_regex at options.replacements.0.pattern", err)
	}
	var ip *InvalidParamsError
	_, err = c.GateInput(t.Context(), nil, "x", nil, DiagnosticDeltaOptions{MaxChars: "ten"})
	if !errors.As(err, &ip) || ip.Path != "options.max_chars" {
		t.Errorf("max_chars: err = %v, want invalid_params at options.max_chars", err)
	}
	_, err = c.ParseDiagnostics(t.Context(), FormatEslint, "not json")
	if !errors.As(err, &re) || re.Code != "diagnostic_parse_error" || re.Path != "text" {
		t.Errorf("eslint: err = %v, want diagnostic_parse_error at text", err)
	}
}

func TestDiagnosticNormalizationKeepsNullsAndUnknownKeys(t *testing.T) {
	in := `{"lowercase":null,"include_path":true,"max_chars":"12","replacements":[],"custom":{"a":1}}`
	var n DiagnosticNormalization
	if err := json.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "typed", []any{n.Lowercase, *n.IncludePath, n.MaxChars, n.Replacements}, []any{(*bool)(nil), true, "12", []any{}})
	mustEqual(t, "extra", n.Extra, map[string]any{"lowercase": nil, "custom": map[string]any{"a": float64(1)}})
	out, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "round trip", jsonValue(t, out), jsonValue(t, []byte(in)))
}
