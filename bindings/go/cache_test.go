package turngate

import (
	"errors"
	"testing"
)

// The material is written out by hand in RFC 8785 order; the key is its SHA-256 computed here.
const (
	cacheEmptySHA  = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	cacheEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
)

func cacheKeyInput(tree string) map[string]any {
	return map[string]any{
		"tree":      tree,
		"lockfiles": map[string]any{"pnpm-lock.yaml": cacheEmptySHA},
		"check": map[string]any{
			"command": "pnpm test", "shell": "bash", "cwd": ".", "env": map[string]any{},
			"expect_exit": 0, "results_format": nil, "timeout_ms": nil,
		},
		"toolchain": []any{},
		"platform":  map[string]any{"os": "linux", "arch": "x64"},
		"outside":   map[string]any{},
		"turngate":  "0.1.0",
	}
}

func TestCacheKeyIsTheSHA256OfTheCanonicalMaterial(t *testing.T) {
	c := realClient(t)
	got, err := c.CacheKey(t.Context(), cacheKeyInput(cacheEmptyTree))
	if err != nil {
		t.Fatal(err)
	}
	material := `{"check":{"command":"pnpm test","cwd":".","env":{},"expect_exit":0,"results_format":null,"shell":"bash","timeout_ms":null},"lockfiles":{"pnpm-lock.yaml":"` +
		cacheEmptySHA + `"},"outside":{},"platform":{"arch":"x64","os":"linux"},"schema":"turngate.cache_key.v1","toolchain":[],"tree":"` +
		cacheEmptyTree + `","turngate":"0.1.0"}`
	mustEqual(t, "cache key", *got, CacheKey{Key: sha256Hex(material), Material: material, Schema: "turngate.cache_key.v1"})
	mustEqual(t, "key", got.Key, "db434845ea0b1902f7207a982b266e54adffae2757f479602a4ff1e6104c95e4")
	var ip *InvalidParamsError
	if _, err := c.CacheKey(t.Context(), cacheKeyInput("nope")); !errors.As(err, &ip) || ip.Path != "input.tree" {
		t.Errorf("bad tree: err = %v, want invalid_params at input.tree", err)
	}
}
