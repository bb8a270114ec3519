package turngate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// protocolFile is the bridge's generated schema, relative to the repository root.
var protocolFile = filepath.Join("packages", "bridge", "schema", "protocol.json")

// loadProtocol reads protocol.json from the enclosing checkout. A missing file fails the
// test (the bridge build generates it; CI builds before testing): parity is never skipped.
func loadProtocol(t *testing.T) map[string]any {
	t.Helper()
	wd, _ := os.Getwd()
	path, ok := findUp(wd, protocolFile)
	if !ok {
		t.Fatalf("%s not found above %s: build the bridge first (pnpm exec turbo run build)", protocolFile, wd)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func protocolMethods(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	methods, ok := doc["methods"].(map[string]any)
	if !ok || len(methods) == 0 {
		t.Fatal("protocol.json has no methods")
	}
	out := map[string]map[string]any{}
	for name, m := range methods {
		out[name], _ = m.(map[string]any)
	}
	return out
}

// receiverType returns *Client or *Session for a Binding.Go name.
func receiverType(goName string) (reflect.Type, string) {
	recv, method, _ := strings.Cut(goName, ".")
	switch recv {
	case "Client":
		return reflect.TypeFor[*Client](), method
	case "Session":
		return reflect.TypeFor[*Session](), method
	}
	return nil, method
}

// transportMethods are called by Start/Close themselves; their Go signatures differ.
var transportMethods = map[string]bool{"initialize": true, "shutdown": true}

func TestSchemaParityEveryWireMethodHasAGoMethod(t *testing.T) {
	methods := protocolMethods(t, loadProtocol(t))
	bound := map[string]Binding{}
	for _, b := range Bindings {
		if _, dup := bound[b.Wire]; dup {
			t.Errorf("%s is bound twice", b.Wire)
		}
		bound[b.Wire] = b
	}
	var names []string
	for name := range methods {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b, ok := bound[name]
		if !ok {
			t.Errorf("protocol method %s has no Go method (add it and a Bindings entry)", name)
			continue
		}
		recv, method := receiverType(b.Go)
		if recv == nil {
			t.Errorf("%s: binding names %q, want Client.X or Session.X", name, b.Go)
			continue
		}
		if _, ok := recv.MethodByName(method); !ok {
			t.Errorf("%s: Go method %s does not exist", name, b.Go)
		}
	}
	for _, b := range Bindings {
		if _, ok := methods[b.Wire]; !ok {
			t.Errorf("Go binding %s → %s names a method the protocol does not have", b.Go, b.Wire)
		}
	}
	// Both ways: every exported method that is not transport plumbing is bound.
	plumbing := map[string]bool{"Client.Call": true, "Client.Info": true, "Client.Start": true, "Client.Close": true}
	boundGo := map[string]bool{}
	for _, b := range Bindings {
		boundGo[b.Go] = true
	}
	for _, recv := range []reflect.Type{reflect.TypeFor[*Client](), reflect.TypeFor[*Session]()} {
		for i := range recv.NumMethod() {
			name := recv.Elem().Name() + "." + recv.Method(i).Name
			if !boundGo[name] && !plumbing[name] {
				t.Errorf("exported method %s calls no protocol method listed in Bindings", name)
			}
		}
	}
}

func TestSchemaParityParamsAndResultTypes(t *testing.T) {
	doc := loadProtocol(t)
	methods := protocolMethods(t, doc)
	k := &schemaChecker{root: doc}
	for _, b := range Bindings {
		m, ok := methods[b.Wire]
		if !ok {
			continue // reported by TestSchemaParityEveryWireMethodHasAGoMethod
		}
		params, _ := m["params"].(map[string]any)
		params = k.resolve(params)
		if strings.HasPrefix(b.Go, "Session.") {
			params = k.withoutSessionID(b.Wire+" params", params)
		}
		if b.Params == nil {
			k.checkType(b.Wire+" params", reflect.TypeFor[Empty](), params)
		} else {
			k.checkType(b.Wire+" params", b.Params, params)
		}
		result, _ := m["result"].(map[string]any)
		k.checkType(b.Wire+" result", b.Result, result)
	}
	for _, e := range k.errs {
		t.Error(e)
	}
}

// withoutSessionID checks that a session method's params require a string session_id, and
// returns the params schema without it (a Session sends its own).
func (k *schemaChecker) withoutSessionID(path string, s schema) schema {
	props, _ := s["properties"].(map[string]any)
	sid, _ := props["session_id"].(map[string]any)
	if sid == nil || sid["type"] != "string" || !slices.Contains(stringList(s["required"]), "session_id") {
		k.failf(path, "a Session method's params must require a string session_id")
		return s
	}
	out := schema{}
	for key, v := range s {
		out[key] = v
	}
	rest := map[string]any{}
	for name, p := range props {
		if name != "session_id" {
			rest[name] = p
		}
	}
	out["properties"] = rest
	var required []any
	for _, r := range stringList(s["required"]) {
		if r != "session_id" {
			required = append(required, r)
		}
	}
	out["required"] = required
	return out
}

func TestSchemaParityGoSignaturesMatchBindings(t *testing.T) {
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	for _, b := range Bindings {
		if transportMethods[b.Wire] {
			continue
		}
		recv, name := receiverType(b.Go)
		m, ok := recv.MethodByName(name)
		if !ok {
			continue // reported elsewhere
		}
		mt := m.Type
		if mt.NumIn() < 2 || mt.In(1) != ctxType {
			t.Errorf("%s: first argument must be context.Context", b.Go)
			continue
		}
		var args []reflect.Type
		for i := 2; i < mt.NumIn(); i++ {
			args = append(args, mt.In(i))
		}
		var fields []reflect.Type
		if b.Params != nil {
			for _, f := range jsonFields(b.Params) {
				fields = append(fields, f.typ)
			}
		}
		if !(b.Params != nil && len(args) == 1 && args[0] == b.Params) && !slices.Equal(args, fields) {
			t.Errorf("%s: arguments %v must be %v's fields in order %v, or %v itself", b.Go, args, b.Params, fields, b.Params)
		}
		if mt.NumOut() == 0 || mt.Out(mt.NumOut()-1) != errType {
			t.Errorf("%s: last result must be error", b.Go)
			continue
		}
		var want []reflect.Type
		switch {
		case b.Wire == "session.create":
			want = []reflect.Type{reflect.TypeFor[*Session]()}
		case b.Result == reflect.TypeFor[Empty]():
			want = nil
		case b.Unwrap == "":
			want = []reflect.Type{b.Result, reflect.PointerTo(b.Result)}
		default:
			for _, f := range jsonFields(b.Result) {
				if f.json == b.Unwrap {
					want = []reflect.Type{f.typ, reflect.PointerTo(f.typ)}
				}
			}
			if want == nil {
				t.Errorf("%s: %v has no member %q to unwrap", b.Go, b.Result, b.Unwrap)
				continue
			}
		}
		if want == nil {
			if mt.NumOut() != 1 {
				t.Errorf("%s: returns %d values, want only error", b.Go, mt.NumOut())
			}
			continue
		}
		if mt.NumOut() != 2 || !slices.Contains(want, mt.Out(0)) {
			t.Errorf("%s: must return (%v, error)", b.Go, want[0])
		}
	}
}

func TestSchemaParityProgressNotification(t *testing.T) {
	doc := loadProtocol(t)
	notes, _ := doc["notifications"].(map[string]any)
	progress, _ := notes["progress"].(map[string]any)
	params, _ := progress["params"].(map[string]any)
	if params == nil {
		t.Fatal("protocol.json has no progress notification")
	}
	k := &schemaChecker{root: doc}
	k.checkType("notifications.progress params", reflect.TypeFor[ProgressEvent](), params)
	for _, e := range k.errs {
		t.Error(e)
	}
}

func TestSchemaParityConstantsAndErrorCodes(t *testing.T) {
	doc := loadProtocol(t)
	if doc["protocol"] != ProtocolName {
		t.Errorf("protocol %v, Go ProtocolName %q", doc["protocol"], ProtocolName)
	}
	framing, _ := doc["framing"].(map[string]any)
	if framing["max_message_bytes"] != float64(DefaultMaxMessageBytes) {
		t.Errorf("max_message_bytes %v, Go DefaultMaxMessageBytes %d", framing["max_message_bytes"], DefaultMaxMessageBytes)
	}
	codes, _ := doc["error_codes"].(map[string]any)
	for code := range protocolCodes {
		if _, ok := codes[code]; !ok {
			t.Errorf("Go maps wire code %q to *ProtocolError, but protocol.json has no such code", code)
		}
	}
	if _, ok := codes["invalid_params"]; !ok {
		t.Error(`protocol.json lacks "invalid_params" (Go's *InvalidParamsError)`)
	}
}
