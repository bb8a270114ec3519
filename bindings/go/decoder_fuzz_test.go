package turngate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// decoderCase is one entry of packages/bridge/test/fuzz/fixtures/decoder-cases.json: a result of a
// stateless method from the TypeScript fuzz suite (fixed seed), valid when it validates
// against protocol.json.
type decoderCase struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Valid  bool            `json:"valid"`
}

// TestFuzzedResultsDecodeOrFailTyped feeds every fuzzed result (issue #11 §4) to the
// decoder of its method's Go result type (the Bindings table): a valid result must
// decode; any result must decode or fail with *ProtocolError — never panic, never another
// error type.
func TestFuzzedResultsDecodeOrFailTyped(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "packages", "bridge", "test", "fuzz", "fixtures", "decoder-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []decoderCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	types := map[string]reflect.Type{}
	for _, b := range Bindings {
		types[b.Wire] = b.Result
	}
	valid, invalid := 0, 0
	for i, c := range cases {
		resultType, ok := types[c.Method]
		if !ok {
			t.Errorf("case %d: no Go binding for %s", i, c.Method)
			continue
		}
		if c.Valid {
			valid++
		} else {
			invalid++
		}
		err := decodeCase(c.Method, c.Result, resultType)
		if err == nil {
			continue
		}
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Errorf("case %d (%s): untyped error %T: %v", i, c.Method, err, err)
		} else if c.Valid {
			t.Errorf("case %d (%s): a result valid against protocol.json was refused: %v", i, c.Method, err)
		}
	}
	if valid < 100 || invalid < 50 {
		t.Errorf("fixture too small: %d valid, %d invalid cases", valid, invalid)
	}
}

// decodeCase runs decodeResult into a new value of resultType, turning a panic into an
// error that is not a *ProtocolError (so the test reports it).
func decodeCase(method string, raw json.RawMessage, resultType reflect.Type) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return decodeResult(method, raw, reflect.New(resultType).Interface())
}
