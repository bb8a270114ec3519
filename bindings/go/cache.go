package turngate

import "context"

// CacheKeyParams are the params of cache.key. Input is the key's input object
// {tree, lockfiles, check, toolchain, platform, outside, turngate} as JSON (any
// JSON-encodable value; the bridge validates it and names the bad field).
type CacheKeyParams struct {
	Input any `json:"input"`
}

// CacheKey is the result of cache.key (issue 20 item 1): Key is the lowercase hex SHA-256
// of Material, the RFC 8785 canonical JSON of the inputs tagged with Schema
// ("turngate.cache_key.v1").
type CacheKey struct {
	Key      string `json:"key"`
	Material string `json:"material"`
	Schema   string `json:"schema"`
}

// CacheKey computes the result-cache key of one check (cache.key; docs/scale-out.md
// "Many machines"). A malformed input is an *InvalidParamsError whose Path names the field
// inside input ("tree", "check.command", …).
func (c *Client) CacheKey(ctx context.Context, input any) (*CacheKey, error) {
	var r CacheKey
	if err := c.Call(ctx, "cache.key", CacheKeyParams{Input: input}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
