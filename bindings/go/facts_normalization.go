package turngate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// DiagnosticNormalization is a diagnostic-signature normalization config
// (harn-verification.md §3.7): the merged config a DiagnosticDelta reports, or a config
// dict inside DiagnosticDeltaOptions. A nil field is absent (the knob's default applies:
// Lowercase, StripANSI, StripLocations, StripTempPaths, CollapseWhitespace, IncludeCode on
// unless false; IncludePath, IncludeSeverity only when true; MaxChars 4000, ≤ 0 disables
// truncation). MaxChars is an integer or an integer string; Replacements items are a
// pattern string (replaced by " ") or {"pattern"|"regex": p, "replacement"|"with": r}; the
// pattern lists are a string or a list of strings (Rust regex syntax).
//
// Extra holds what has no typed field — unknown keys a profile row carried, and known keys
// that were explicitly null — so decoding and re-encoding loses nothing.
type DiagnosticNormalization struct {
	Lowercase           *bool          `json:"lowercase,omitempty"`
	StripANSI           *bool          `json:"strip_ansi,omitempty"`
	StripLocations      *bool          `json:"strip_locations,omitempty"`
	StripTempPaths      *bool          `json:"strip_temp_paths,omitempty"`
	CollapseWhitespace  *bool          `json:"collapse_whitespace,omitempty"`
	IncludePath         *bool          `json:"include_path,omitempty"`
	IncludeCode         *bool          `json:"include_code,omitempty"`
	IncludeSeverity     *bool          `json:"include_severity,omitempty"`
	MaxChars            any            `json:"max_chars,omitempty"`
	Replacements        []any          `json:"replacements,omitzero"`
	StripPatterns       any            `json:"strip_patterns,omitempty"`
	StripPatternsCamel  any            `json:"stripPatterns,omitempty"`
	IgnorePatterns      any            `json:"ignore_patterns,omitempty"`
	IgnorePatternsCamel any            `json:"ignorePatterns,omitempty"`
	Extra               map[string]any `json:"-"`
}

// normalizationKeys are the JSON names of DiagnosticNormalization's typed fields.
var normalizationKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[DiagnosticNormalization]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// normalizationFields is DiagnosticNormalization without its JSON methods.
type normalizationFields DiagnosticNormalization

// UnmarshalJSON decodes the typed fields and keeps every other key (and every known key
// given as null) in Extra. A JSON null leaves n unchanged.
func (n *DiagnosticNormalization) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var typed normalizationFields
	if err := json.Unmarshal(data, &typed); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	extra := map[string]any{}
	for key, value := range raw {
		isNull := bytes.Equal(bytes.TrimSpace(value), []byte("null"))
		if normalizationKeys[key] && !isNull {
			continue
		}
		var v any
		if err := json.Unmarshal(value, &v); err != nil {
			return err
		}
		extra[key] = v
	}
	*n = DiagnosticNormalization(typed)
	if len(extra) > 0 {
		n.Extra = extra
	}
	return nil
}

// MarshalJSON encodes the typed fields, then every Extra key a typed field did not set.
func (n DiagnosticNormalization) MarshalJSON() ([]byte, error) {
	typed, err := json.Marshal(normalizationFields(n))
	if err != nil || len(n.Extra) == 0 {
		return typed, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(typed, &out); err != nil {
		return nil, err
	}
	for key, value := range n.Extra {
		if _, set := out[key]; set {
			continue
		}
		encoded, err := json.Marshal(value)
		if err != nil {
			return nil, err
		}
		out[key] = encoded
	}
	return json.Marshal(out)
}

// DiagnosticDeltaOptions are the options of Client.DiagnosticDelta and Client.GateInput
// (harn-verification.md §3.7, lowest precedence first): the configs of a profile Row (or
// ProfileRow, used when Row is nil) and of its "check" — signatureNormalization,
// signature_normalization, diagnosticDelta, diagnostic_delta, in that order — then one
// direct config (DiagnosticDelta, else SignatureNormalization), then the knobs set here.
// The zero value sends no options: the defaults apply. Fields as in
// DiagnosticNormalization.
type DiagnosticDeltaOptions struct {
	Lowercase              *bool                    `json:"lowercase,omitempty"`
	StripANSI              *bool                    `json:"strip_ansi,omitempty"`
	StripLocations         *bool                    `json:"strip_locations,omitempty"`
	StripTempPaths         *bool                    `json:"strip_temp_paths,omitempty"`
	CollapseWhitespace     *bool                    `json:"collapse_whitespace,omitempty"`
	IncludePath            *bool                    `json:"include_path,omitempty"`
	IncludeCode            *bool                    `json:"include_code,omitempty"`
	IncludeSeverity        *bool                    `json:"include_severity,omitempty"`
	MaxChars               any                      `json:"max_chars,omitempty"`
	Replacements           []any                    `json:"replacements,omitzero"`
	StripPatterns          any                      `json:"strip_patterns,omitempty"`
	IgnorePatterns         any                      `json:"ignore_patterns,omitempty"`
	DiagnosticDelta        *DiagnosticNormalization `json:"diagnostic_delta,omitempty"`
	SignatureNormalization *DiagnosticNormalization `json:"signature_normalization,omitempty"`
	Row                    map[string]any           `json:"row,omitzero"`
	ProfileRow             map[string]any           `json:"profile_row,omitzero"`
}
