package turngate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// DefaultMaxMessageBytes is the per-message limit of the bridge protocol: 32 MiB of JSON
// per line, not counting the trailing newline (docs/design.md §5).
const DefaultMaxMessageBytes = 32 << 20

// ProtocolName is the protocol id the bridge must report from initialize.
const ProtocolName = "turngate.bridge.v1"

// envelope is any line the bridge writes: a response (id + result|error) or a
// notification (method + params, no id).
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
}

// wireError is a JSON-RPC error object with turngate's data block.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	RawData json.RawMessage `json:"data"`
	Data    *wireErrorData  `json:"-"`
}

// wireErrorData is turngate's error.data block.
type wireErrorData struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// UnmarshalJSON keeps error.data both raw and parsed (a malformed data block is ignored).
func (w *wireError) UnmarshalJSON(b []byte) error {
	type plain wireError
	if err := json.Unmarshal(b, (*plain)(w)); err != nil {
		return err
	}
	if !isNull(w.RawData) {
		var d wireErrorData
		if json.Unmarshal(w.RawData, &d) == nil {
			w.Data = &d
		}
	}
	return nil
}

// toError turns a wire error into the typed error its data.code selects (see errors.go).
func (w *wireError) toError(method string) error {
	code, path, msg := "", "", w.Message
	if w.Data != nil {
		code, path = w.Data.Code, w.Data.Path
		if w.Data.Message != "" {
			msg = w.Data.Message
		}
	}
	switch {
	case code == "":
		return &ProtocolError{Code: "protocol_violation", Method: method, Message: fmt.Sprintf("bridge error %d without a stable data.code: %s", w.Code, msg)}
	case code == "invalid_params":
		return &InvalidParamsError{Method: method, Path: path, Message: msg, RPCCode: w.Code, Data: w.RawData}
	case protocolCodes[code]:
		return &ProtocolError{Code: code, Method: method, Message: msg, Data: w.RawData}
	default:
		return &RemoteError{Method: method, Code: code, Path: path, Message: msg, RPCCode: w.Code, Data: w.RawData}
	}
}

// describe renders "code: message" for an error that belongs to no call.
func (w *wireError) describe() string {
	if w.Data != nil && w.Data.Code != "" {
		msg := w.Data.Message
		if msg == "" {
			msg = w.Message
		}
		return w.Data.Code + ": " + msg
	}
	return fmt.Sprintf("%d: %s", w.Code, w.Message)
}

// encodeRequest builds one request line (with the trailing newline). params must already
// be JSON (nil means no params member).
func encodeRequest(buf []byte, id uint64, method string, params []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"method":`...)
	quoted, _ := json.Marshal(method) // a string always marshals
	buf = append(buf, quoted...)
	if params != nil {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}', '\n')
}

// parseID reads a numeric response id. ok is false for null, strings or anything else.
func parseID(raw json.RawMessage) (uint64, bool) {
	if len(raw) == 0 || raw[0] < '0' || raw[0] > '9' {
		return 0, false
	}
	id, err := strconv.ParseUint(string(raw), 10, 64)
	return id, err == nil
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// decodeResult unmarshals a result into out, turning decode failures into *ProtocolError
// naming the field.
func decodeResult(method string, raw json.RawMessage, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		pe := &ProtocolError{Code: "bad_result", Method: method, Message: "result does not match the Go type: " + err.Error(), Err: err, Line: truncate(raw)}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			pe.Field = te.Field
			pe.Message = "result field is a JSON " + te.Value + ", want Go " + te.Type.String()
		}
		return pe
	}
	return nil
}

// truncate keeps at most 200 bytes of a line for error messages.
func truncate(b []byte) string {
	const limit = 200
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
