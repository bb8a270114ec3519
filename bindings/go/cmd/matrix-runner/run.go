package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	turngate "github.com/turngate/turngate/bindings/go"
)

// runResults is the result file (test-matrix/README.md "Runtimes").
type runResults struct {
	Runtime string           `json:"runtime"`
	Cases   []map[string]any `json:"cases"`
}

// runStats counts how cases reached the bridge.
type runStats struct{ total, typed, raw, untyped int }

// outcome is what one call gave: the result, or the error's data.code and data.path.
type outcome struct {
	actual    json.RawMessage
	errorCode string
	errorPath *string
}

// runCases calls every case in order and judges each against its own vector (the referee
// recomputes the verdicts). It returns an error only when the bridge itself failed.
func runCases(ctx context.Context, c *turngate.Client, groups []vectorGroup) (runResults, runStats, error) {
	res := runResults{Runtime: "go", Cases: []map[string]any{}}
	var stats runStats
	for _, g := range groups {
		for _, vc := range g.Cases {
			out, how, err := callCase(ctx, c, vc.Method, vc.Params)
			if err != nil {
				return res, stats, fmt.Errorf("%s/%s: %w", g.Name, vc.ID, err)
			}
			stats.total++
			switch how {
			case "typed":
				stats.typed++
			case "raw":
				stats.raw++
			default:
				stats.untyped++
			}
			entry := map[string]any{"group": g.Name, "id": vc.ID}
			if out.errorCode == "" {
				entry["actual"] = out.actual
				entry["ok"] = vc.Expect != nil && jsonEqual(out.actual, vc.Expect)
			} else {
				entry["error_code"] = out.errorCode
				entry["error_path"] = out.errorPath
				entry["ok"] = vc.ErrorCode != nil && *vc.ErrorCode == out.errorCode &&
					(vc.ErrorPath == nil || (out.errorPath != nil && *out.errorPath == *vc.ErrorPath))
			}
			res.Cases = append(res.Cases, entry)
		}
	}
	return res, stats, nil
}

// bindingFor returns the Client method bound to a stateless wire method.
func bindingFor(method string) (turngate.Binding, bool) {
	for _, b := range turngate.Bindings {
		if b.Wire == method && strings.HasPrefix(b.Go, "Client.") && b.Params != nil {
			return b, true
		}
	}
	return turngate.Binding{}, false
}

// callCase sends one case. "typed": the params decoded losslessly into the Go params
// struct and the typed Go method was called, its return value re-encoded through the Go
// result type; "raw": the params could not be expressed in Go types (unknown keys, wrong
// JSON types, nulls — error vectors), so they went verbatim through Client.Call while the
// result still decoded through the Go result type; "untyped": no Go method exists for the
// wire name (unknown-method vectors), so both went verbatim.
func callCase(ctx context.Context, c *turngate.Client, method string, params json.RawMessage) (outcome, string, error) {
	var wire any // nil sends no params member
	if params != nil {
		wire = params
	}
	b, ok := bindingFor(method)
	if !ok {
		var out json.RawMessage
		err := c.Call(ctx, method, wire, &out)
		return finish(out, err, "untyped")
	}
	typed := reflect.New(b.Params)
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if params != nil && !bytes.Contains(params, []byte("null")) && dec.Decode(typed.Interface()) == nil {
		again, err := json.Marshal(typed.Elem().Interface())
		if err == nil && jsonEqual(again, params) {
			out, err := invokeTyped(ctx, c, b, typed.Elem())
			return finish(out, err, "typed")
		}
	}
	result := reflect.New(b.Result)
	err := c.Call(ctx, method, wire, result.Interface())
	if err != nil {
		return finish(nil, err, "raw")
	}
	out, err := json.Marshal(result.Elem().Interface())
	return finish(out, err, "raw")
}

// invokeTyped calls the bound Go method with the params struct (or its fields in order)
// and encodes what it returned as the wire result, re-wrapping an unwrapped member.
func invokeTyped(ctx context.Context, c *turngate.Client, b turngate.Binding, params reflect.Value) (json.RawMessage, error) {
	name := strings.TrimPrefix(b.Go, "Client.")
	m := reflect.ValueOf(c).MethodByName(name)
	args := []reflect.Value{reflect.ValueOf(ctx)}
	if m.Type().NumIn() == 2 && m.Type().In(1) == b.Params {
		args = append(args, params)
	} else {
		for i := range params.NumField() {
			args = append(args, params.Field(i))
		}
	}
	outs := m.Call(args)
	if err, _ := outs[len(outs)-1].Interface().(error); err != nil {
		return nil, err
	}
	value := outs[0]
	if b.Unwrap != "" {
		wrapped := reflect.New(b.Result).Elem()
		field, ok := fieldByJSON(b.Result, b.Unwrap)
		if !ok {
			return nil, fmt.Errorf("%v has no member %q", b.Result, b.Unwrap)
		}
		if value.Kind() == reflect.Pointer && wrapped.FieldByIndex(field).Kind() != reflect.Pointer {
			value = value.Elem()
		}
		wrapped.FieldByIndex(field).Set(value)
		value = wrapped
	}
	return json.Marshal(value.Interface())
}

func fieldByJSON(t reflect.Type, name string) ([]int, bool) {
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name {
			return []int{i}, true
		}
	}
	return nil, false
}

// finish turns a call's error into the case outcome: bridge errors become their data.code
// and data.path; a Go-side decode failure becomes code "go_<code>" (so it shows as a
// difference from the other runtimes); anything else (the bridge died) is returned.
func finish(out json.RawMessage, err error, how string) (outcome, string, error) {
	if err == nil {
		return outcome{actual: out}, how, nil
	}
	var ip *turngate.InvalidParamsError
	var re *turngate.RemoteError
	var pe *turngate.ProtocolError
	switch {
	case errors.As(err, &ip):
		return outcome{errorCode: "invalid_params", errorPath: dataPath(ip.Data)}, how, nil
	case errors.As(err, &re):
		return outcome{errorCode: re.Code, errorPath: dataPath(re.Data)}, how, nil
	case errors.As(err, &pe) && pe.Data != nil:
		return outcome{errorCode: pe.Code, errorPath: dataPath(pe.Data)}, how, nil
	case errors.As(err, &pe) && pe.Method != "":
		return outcome{errorCode: "go_" + pe.Code}, how, nil
	}
	return outcome{}, how, err
}

// dataPath is error.data.path, nil when absent.
func dataPath(data json.RawMessage) *string {
	var d struct {
		Path *string `json:"path"`
	}
	_ = json.Unmarshal(data, &d)
	return d.Path
}

// jsonEqual compares two JSON texts as values (object key order ignored, numbers by value).
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
