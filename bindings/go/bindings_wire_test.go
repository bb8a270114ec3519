package turngate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// genValue builds a deterministic non-zero value of type t: strings, numbers and booleans
// vary with r; slices hold two elements; maps one entry; pointers are set; any holds a
// string; json.RawMessage holds a JSON string.
func genValue(t reflect.Type, r *rand.Rand, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch {
	case t == rawMessageType:
		v.SetBytes(fmt.Appendf(nil, `"raw-%d"`, r.IntN(1000)))
		return v
	case t.Kind() == reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any-%d", r.IntN(1000))))
		return v
	}
	switch t.Kind() {
	case reflect.String:
		if vals, ok := reflect.Zero(t).Interface().(valuer); ok {
			list := vals.Values()
			v.SetString(list[r.IntN(len(list))])
		} else {
			v.SetString(fmt.Sprintf("s-%d|\n\"é", r.IntN(1000)))
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(100) + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(100) + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(r.IntN(1000)) + 0.5)
	case reflect.Pointer:
		v.Set(genValue(t.Elem(), r, depth).Addr())
	case reflect.Slice:
		n := 2
		if depth > 3 {
			n = 0
		}
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			s.Index(i).Set(genValue(t.Elem(), r, depth+1))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(t)
		m.SetMapIndex(reflect.ValueOf(fmt.Sprintf("k%d", r.IntN(100))).Convert(t.Key()), genValue(t.Elem(), r, depth+1))
		v.Set(m)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(genValue(t.Field(i).Type, r, depth+1))
			}
		}
	}
	return v
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// TestBindingsSendTheirWireMethodAndArguments calls every bound Go method with generated
// arguments against a fake bridge that answers with the request line it received, and
// checks the wire method and that each argument landed in its own params member.
func TestBindingsSendTheirWireMethodAndArguments(t *testing.T) {
	c := fakeClient(t, []string{"FAKE_RECORD=1"})
	session := &Session{ID: "session-7", client: c}
	r := rand.New(rand.NewPCG(5, 9))
	for _, b := range Bindings {
		if transportMethods[b.Wire] {
			continue
		}
		t.Run(b.Wire, func(t *testing.T) {
			recv, name := receiverType(b.Go)
			target := reflect.ValueOf(c)
			if recv == reflect.TypeFor[*Session]() {
				target = reflect.ValueOf(session)
			}
			method := target.MethodByName(name)
			mt := method.Type()
			args := []reflect.Value{reflect.ValueOf(context.Background())}
			var params reflect.Value
			if b.Params != nil {
				params = reflect.New(b.Params).Elem()
			}
			for i := 1; i < mt.NumIn(); i++ {
				arg := genValue(mt.In(i), r, 0)
				args = append(args, arg)
				if mt.NumIn() == 2 && mt.In(1) == b.Params {
					params.Set(arg)
				} else {
					params.Field(i - 1).Set(arg)
				}
			}
			outs := method.Call(args)
			err, _ := outs[len(outs)-1].Interface().(error)
			var re *RemoteError
			if !errors.As(err, &re) || re.Code != "internal_error" {
				t.Fatalf("want the recorded request, got %v", err)
			}
			var req struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(re.Message), &req); err != nil {
				t.Fatalf("recorded line %q: %v", re.Message, err)
			}
			if req.Method != b.Wire {
				t.Fatalf("%s sent method %q, want %q", b.Go, req.Method, b.Wire)
			}
			var want []byte
			switch {
			case recv == reflect.TypeFor[*Session]() && b.Params == nil:
				want = []byte(`{"session_id":"session-7"}`)
			case recv == reflect.TypeFor[*Session]():
				want, _ = json.Marshal(sessionParams{id: "session-7", params: params.Interface()})
			default:
				want, _ = json.Marshal(params.Interface())
			}
			if got, exp := jsonValue(t, req.Params), jsonValue(t, want); !reflect.DeepEqual(got, exp) {
				t.Fatalf("%s sent params\n%s\nwant\n%s", b.Go, req.Params, want)
			}
		})
	}
}

// TestResultTypesRoundTrip encodes a generated value of every params and result type and
// decodes it back: no member may be lost or changed (A3S's Go SDK dropped effect_digest on
// exactly this round trip).
func TestResultTypesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	types := []reflect.Type{reflect.TypeFor[ProgressEvent]()}
	for _, b := range Bindings {
		if b.Params != nil {
			types = append(types, b.Params)
		}
		types = append(types, b.Result)
	}
	for _, typ := range types {
		v := genValue(typ, r, 0)
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		back := reflect.New(typ)
		if err := json.Unmarshal(raw, back.Interface()); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		again, _ := json.Marshal(back.Elem().Interface())
		if string(again) != string(raw) {
			t.Errorf("%v does not round-trip:\n%s\n%s", typ, raw, again)
		}
	}
}

func TestEffectDigestAndExpectExitRoundTrip(t *testing.T) {
	digest := "3c30f132503691d455fa5e9d60a9d177bbe05d8abe5cf39003a9968010650561"
	report := VerificationReport{Subject: "s", Status: StatusSkipped, EffectDigest: &digest}
	raw, _ := json.Marshal(report)
	if string(raw) != `{"subject":"s","status":"skipped","checks":[],"effect_digest":"`+digest+`"}` {
		t.Fatalf("report encodes as %s", raw)
	}
	var back VerificationReport
	if err := json.Unmarshal(raw, &back); err != nil || back.EffectDigest == nil || *back.EffectDigest != digest {
		t.Fatalf("effect_digest lost: %+v %v", back, err)
	}
	empty := ""
	raw, _ = json.Marshal(VerificationReport{Subject: "s", Status: StatusSkipped, EffectDigest: &empty})
	if string(raw) != `{"subject":"s","status":"skipped","checks":[],"effect_digest":""}` {
		t.Fatalf("an empty effect_digest must stay present: %s", raw)
	}

	cmd := VerificationCommand{ID: "t", Kind: "test", Description: "d", Command: "exit 3", ExpectExit: 3}
	raw, _ = json.Marshal(cmd)
	if string(raw) != `{"id":"t","kind":"test","description":"d","command":"exit 3","required":false,"expect_exit":3}` {
		t.Fatalf("command encodes as %s", raw)
	}
	var backCmd VerificationCommand
	if err := json.Unmarshal([]byte(`{"id":"t","kind":"test","description":"d","command":"c","timeout_ms":0}`), &backCmd); err != nil {
		t.Fatal(err)
	}
	if backCmd.Required || backCmd.ExpectExit != 0 || backCmd.TimeoutMS == nil || *backCmd.TimeoutMS != 0 {
		t.Fatalf("defaults: %+v", backCmd)
	}
}
