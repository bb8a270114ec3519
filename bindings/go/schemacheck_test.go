package turngate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// schemaChecker compares Go types with the JSON Schemas (draft 2020-12, as zod's
// toJSONSchema writes them) of packages/bridge/schema/protocol.json. It collects every
// difference as "path: problem" so one run reports all drift at once.
//
// Rules (docs/design.md §6; issue 5 "optional fields are pointers or omitempty exactly as the
// JSON Schema says"):
//   - every schema property has a Go field with that json name, and every Go field is a
//     schema property;
//   - types: string ↔ string kinds, integer ↔ int kinds, number ↔ float kinds, boolean ↔
//     bool, array ↔ slice, object with properties ↔ struct, object with only
//     additionalProperties ↔ map[string]T, {} or a multi-type union ↔ any/json.RawMessage;
//     a string enum of two or more values ↔ a named type whose Values() lists exactly them;
//   - a union of objects (oneOf/anyOf) is checked as one object: a property is required
//     only when every variant requires it, a discriminator's consts become an enum;
//   - a required property: no pointer (unless nullable), and omitempty only when the
//     values omitempty drops ("" / 0 / false / [] / {}) are invalid for the schema;
//   - an optional property: a pointer needs omitempty/omitzero (else nil sends null); a
//     slice or map needs omitzero (nil ↔ absent, empty ↔ [] / {}) — omitempty would also
//     drop [] / {}, allowed only when that is the schema default; any other non-pointer
//     needs a schema default equal to its zero value, or omitempty while its zero value is
//     invalid for the schema — otherwise a pointer is required so that "absent" and the
//     zero value stay distinct.
type schemaChecker struct {
	root map[string]any
	errs []string
}

type schema = map[string]any

func (k *schemaChecker) failf(path, format string, args ...any) {
	k.errs = append(k.errs, path+": "+fmt.Sprintf(format, args...))
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

type valuer interface{ Values() []string }

// resolve follows a local "$ref" ("#/$defs/Name").
func (k *schemaChecker) resolve(s schema) schema {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var cur any = k.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return schema{}
		}
		s = next
	}
}

// variants returns the alternatives of a oneOf/anyOf schema (nil when it is not a union).
func variants(s schema) []schema {
	for _, key := range []string{"oneOf", "anyOf"} {
		if list, ok := s[key].([]any); ok {
			out := make([]schema, 0, len(list))
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return nil
}

// splitNullable returns the non-null schema of an [X, null] union and whether null was
// allowed; any other schema is returned unchanged.
func (k *schemaChecker) splitNullable(s schema) (schema, bool) {
	s = k.resolve(s)
	if types := schemaTypes(s); len(types) == 2 && slices.Contains(types, "null") {
		inner := schema{}
		for key, v := range s {
			inner[key] = v
		}
		inner["type"] = types[0]
		if types[0] == "null" {
			inner["type"] = types[1]
		}
		return inner, true
	}
	vs := variants(s)
	if vs == nil {
		return s, false
	}
	var nonNull []schema
	hasNull := false
	for _, v := range vs {
		v = k.resolve(v)
		if v["type"] == "null" {
			hasNull = true
		} else {
			nonNull = append(nonNull, v)
		}
	}
	if hasNull && len(nonNull) == 1 {
		return nonNull[0], true
	}
	return s, false
}

func schemaTypes(s schema) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func isAnySchema(s schema) bool {
	for _, key := range []string{"type", "properties", "enum", "const", "oneOf", "anyOf", "$ref", "items"} {
		if _, ok := s[key]; ok {
			return false
		}
	}
	return true
}

func isAnyGo(t reflect.Type) bool { return t.Kind() == reflect.Interface || t == rawMessageType }

// checkType compares Go type t with schema s.
func (k *schemaChecker) checkType(path string, t reflect.Type, s schema) {
	s = k.resolve(s)
	if inner, nullable := k.splitNullable(s); nullable {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		} else if !isAnyGo(t) && t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
			k.failf(path, "schema allows null but Go type %s cannot hold it", t)
			return
		}
		s = inner
	}
	if vs := variants(s); vs != nil {
		merged, ok := k.mergeObjects(path, vs)
		if !ok {
			if !isAnyGo(t) {
				k.failf(path, "union of non-object schemas needs any or json.RawMessage, Go has %s", t)
			}
			return
		}
		s = merged
	}
	if isAnySchema(s) {
		if !isAnyGo(t) {
			k.failf(path, "schema accepts any JSON value; Go type %s is narrower (use any or json.RawMessage)", t)
		}
		return
	}
	types := schemaTypes(s)
	if len(types) != 1 {
		if !isAnyGo(t) {
			k.failf(path, "schema type %v needs any or json.RawMessage, Go has %s", types, t)
		}
		return
	}
	switch types[0] {
	case "object":
		k.checkObject(path, t, s)
	case "array":
		if t.Kind() != reflect.Slice || t == rawMessageType {
			k.failf(path, "schema type array, Go type %s", t)
			return
		}
		items, _ := s["items"].(map[string]any)
		k.checkType(path+"[]", t.Elem(), items)
	case "string":
		if t.Kind() != reflect.String {
			k.failf(path, "schema type string, Go type %s", t)
			return
		}
		k.checkEnum(path, t, s)
	case "integer":
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			k.failf(path, "schema type integer, Go type %s", t)
		}
	case "number":
		if t.Kind() != reflect.Float64 && t.Kind() != reflect.Float32 {
			k.failf(path, "schema type number, Go type %s", t)
		}
	case "boolean":
		if t.Kind() != reflect.Bool {
			k.failf(path, "schema type boolean, Go type %s", t)
		}
	default:
		k.failf(path, "unsupported schema type %q", types[0])
	}
}

// checkEnum requires a named type with matching Values() for an enum of two or more
// strings, and that a const/enum on a Values() type is among its values.
func (k *schemaChecker) checkEnum(path string, t reflect.Type, s schema) {
	var want []string
	if list, ok := s["enum"].([]any); ok {
		for _, v := range list {
			if str, ok := v.(string); ok {
				want = append(want, str)
			}
		}
	}
	if c, ok := s["const"].(string); ok {
		want = append(want, c)
	}
	if len(want) == 0 {
		return
	}
	v, ok := reflect.Zero(t).Interface().(valuer)
	if !ok {
		if len(want) > 1 {
			k.failf(path, "schema enum %q needs a named Go type with Values(), Go has %s", want, t)
		}
		return
	}
	have := v.Values()
	if len(want) == 1 {
		if !slices.Contains(have, want[0]) {
			k.failf(path, "schema const %q is not among %s.Values() %q", want[0], t, have)
		}
		return
	}
	a, b := slices.Clone(want), slices.Clone(have)
	sort.Strings(a)
	sort.Strings(b)
	if !slices.Equal(a, b) {
		k.failf(path, "schema enum %q, but %s.Values() is %q", want, t, have)
	}
}

// mergeObjects folds a union of object schemas into one object schema (see the type
// comment). ok is false when a variant is not an object.
func (k *schemaChecker) mergeObjects(path string, vs []schema) (schema, bool) {
	props := map[string][]schema{}
	var order []string
	requiredCount := map[string]int{}
	for _, v := range vs {
		v = k.resolve(v)
		if !slices.Contains(schemaTypes(v), "object") {
			return nil, false
		}
		vp, _ := v["properties"].(map[string]any)
		for name, p := range vp {
			if _, seen := props[name]; !seen {
				order = append(order, name)
			}
			ps, _ := p.(map[string]any)
			props[name] = append(props[name], k.resolve(ps))
		}
		for _, r := range stringList(v["required"]) {
			requiredCount[r]++
		}
	}
	sort.Strings(order)
	merged := schema{"type": "object", "properties": map[string]any{}}
	var required []any
	for _, name := range order {
		ps := props[name]
		if requiredCount[name] == len(vs) {
			required = append(required, name)
		}
		merged["properties"].(map[string]any)[name] = k.mergeProperty(path+"."+name, ps)
	}
	merged["required"] = required
	return merged, true
}

// mergeProperty merges one property's schemas across union variants: consts/enums of one
// scalar type become one enum; otherwise the variants must agree (descriptions aside).
func (k *schemaChecker) mergeProperty(path string, ps []schema) schema {
	if len(ps) == 1 {
		return ps[0]
	}
	var enum []any
	allLiteral := true
	typ := schemaTypes(ps[0])
	for _, p := range ps {
		if !slices.Equal(schemaTypes(p), typ) {
			allLiteral = false
			break
		}
		var values []any
		if c, ok := p["const"]; ok {
			values = []any{c}
		} else if e, ok := p["enum"].([]any); ok {
			values = e
		} else {
			allLiteral = false
			break
		}
		for _, v := range values {
			if !slices.ContainsFunc(enum, func(x any) bool { return canonical(x) == canonical(v) }) {
				enum = append(enum, v)
			}
		}
	}
	if allLiteral && len(typ) == 1 {
		return schema{"type": typ[0], "enum": enum}
	}
	first := canonical(withoutDescription(ps[0]))
	for _, p := range ps[1:] {
		if canonical(withoutDescription(p)) != first {
			k.failf(path, "union variants disagree on this property's schema")
			break
		}
	}
	return ps[0]
}

func withoutDescription(s schema) schema {
	out := schema{}
	for key, v := range s {
		if key != "description" {
			out[key] = v
		}
	}
	return out
}

func canonical(v any) string {
	b, _ := json.Marshal(v) // map keys are sorted by encoding/json
	return string(b)
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// goField is one exported struct field as encoding/json sees it.
type goField struct {
	name      string // Go name
	json      string
	omitempty bool
	omitzero  bool
	typ       reflect.Type
}

func jsonFields(t reflect.Type) []goField {
	var out []goField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		list := strings.Split(opts, ",")
		out = append(out, goField{name: f.Name, json: name, omitempty: slices.Contains(list, "omitempty"), omitzero: slices.Contains(list, "omitzero"), typ: f.Type})
	}
	return out
}

// checkObject compares a struct (or map) with an object schema.
func (k *schemaChecker) checkObject(path string, t reflect.Type, s schema) {
	props, hasProps := s["properties"].(map[string]any)
	if ap, ok := s["additionalProperties"].(map[string]any); ok && (!hasProps || len(props) == 0) {
		if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String {
			k.failf(path, "schema is a string-keyed record, Go type %s is not map[string]T", t)
			return
		}
		k.checkType(path+"{}", t.Elem(), ap)
		return
	}
	if t.Kind() != reflect.Struct {
		k.failf(path, "schema type object, Go type %s is not a struct", t)
		return
	}
	k.checkStruct(path, t, props, stringList(s["required"]))
}

// checkStruct compares struct t with an object's properties and required list.
func (k *schemaChecker) checkStruct(path string, t reflect.Type, props map[string]any, required []string) {
	fields := map[string]goField{}
	for _, f := range jsonFields(t) {
		fields[f.json] = f
		if _, ok := props[f.json]; !ok {
			k.failf(path, "Go field %s.%s (json %q) is not in the schema", t.Name(), f.name, f.json)
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := fields[name]
		p, _ := props[name].(map[string]any)
		if !ok {
			k.failf(path, "schema property %q has no Go field in %s", name, t)
			continue
		}
		k.checkField(path+"."+name, f, k.resolve(p), slices.Contains(required, name))
	}
}

// checkField applies the optionality rules to one field, then compares its type.
func (k *schemaChecker) checkField(path string, f goField, p schema, required bool) {
	inner, nullable := k.splitNullable(p)
	t := f.typ
	isPtr := t.Kind() == reflect.Pointer
	collection := t.Kind() == reflect.Slice && t != rawMessageType || t.Kind() == reflect.Map
	omits := f.omitempty || f.omitzero
	def, hasDefault := p["default"]
	switch {
	case isAnyGo(t):
		// any/RawMessage holds whatever the schema allows, absent included (nil + omitempty).
	case required && isPtr:
		if !nullable {
			k.failf(path, "required, but Go field %s is a pointer (nil would be omitted or sent as null)", f.name)
		} else if omits {
			k.failf(path, "required and nullable, but Go field %s has omitempty/omitzero (nil would be omitted)", f.name)
		}
	case required && (f.omitempty || f.omitzero && !collection):
		if dropped := droppedByOmitempty(t); k.valid(dropped, inner) {
			k.failf(path, "required, but omitempty on Go field %s would drop the valid value %s", f.name, canonical(dropped))
		}
	case !required && isPtr:
		if !omits && !nullable {
			k.failf(path, "optional, but Go field %s is a pointer without omitempty (nil is sent as null)", f.name)
		}
	case !required && collection:
		dropped := droppedByOmitempty(t)
		switch {
		case f.omitempty && !(hasDefault && canonical(def) == canonical(dropped)):
			k.failf(path, "optional, but omitempty on Go field %s also drops %s, which the schema tells apart from absent (use omitzero)", f.name, canonical(dropped))
		case !omits:
			k.failf(path, "optional, but Go field %s has no omitzero (nil is sent as null)", f.name)
		}
	case !required:
		zero := zeroJSON(t)
		defaultIsZero := hasDefault && canonical(def) == canonical(zero)
		if omits && t.Kind() != reflect.Struct {
			if !defaultIsZero && k.valid(zero, inner) {
				k.failf(path, "optional without a default of %s: omitempty on Go field %s would make the valid value %s indistinguishable from absent (use a pointer)", canonical(zero), f.name, canonical(zero))
			}
		} else if !defaultIsZero {
			k.failf(path, "optional, but Go field %s is always sent and its zero value %s is not the schema default (use a pointer with omitempty)", f.name, canonical(zero))
		}
	}
	if isPtr {
		t = t.Elem()
		if nullable {
			p = inner
		}
	}
	k.checkType(path, t, p)
}

// zeroJSON is what encoding/json writes for t's zero value, as a JSON value.
func zeroJSON(t reflect.Type) any {
	b, _ := json.Marshal(reflect.Zero(t).Interface())
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// droppedByOmitempty is the value omitempty treats as empty for t: "" / 0 / false, and []
// or {} for slices and maps (their empty values are dropped as well as nil).
func droppedByOmitempty(t reflect.Type) any {
	switch t.Kind() {
	case reflect.Slice:
		return []any{}
	case reflect.Map:
		return map[string]any{}
	}
	return zeroJSON(t)
}

// valid reports whether JSON value v satisfies schema s, for the keywords the protocol
// uses: type, enum, const, minLength, pattern, minimum/maximum (exclusive too), minItems,
// properties/required, items, oneOf/anyOf.
func (k *schemaChecker) valid(v any, s schema) bool {
	s = k.resolve(s)
	if vs := variants(s); vs != nil {
		for _, alt := range vs {
			if k.valid(v, alt) {
				return true
			}
		}
		return false
	}
	if c, ok := s["const"]; ok && canonical(c) != canonical(v) {
		return false
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return canonical(x) == canonical(v) }) {
		return false
	}
	if types := schemaTypes(s); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return jsonIs(v, t) }) {
		return false
	}
	switch x := v.(type) {
	case string:
		if n, ok := s["minLength"].(float64); ok && float64(len([]rune(x))) < n {
			return false
		}
		if pat, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(pat); err == nil && !re.MatchString(x) {
				return false
			}
		}
	case float64:
		if n, ok := s["minimum"].(float64); ok && x < n {
			return false
		}
		if n, ok := s["exclusiveMinimum"].(float64); ok && x <= n {
			return false
		}
		if n, ok := s["maximum"].(float64); ok && x > n {
			return false
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			return false
		}
		if items, ok := s["items"].(map[string]any); ok {
			for _, el := range x {
				if !k.valid(el, items) {
					return false
				}
			}
		}
	case map[string]any:
		for _, r := range stringList(s["required"]) {
			if _, ok := x[r]; !ok {
				return false
			}
		}
		props, _ := s["properties"].(map[string]any)
		for name, val := range x {
			if p, ok := props[name].(map[string]any); ok && !k.valid(val, p) {
				return false
			}
		}
	}
	return true
}

func jsonIs(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}
