package turngate

// Version is this Go binding's version; it is sent to the bridge in initialize.
const Version = "0.1.0"

// InitializeParams are the params of initialize: who the client is (informational, used
// in the bridge's logs).
type InitializeParams struct {
	Client *ClientInfo `json:"client,omitempty"`
}

// ClientInfo names the client in initialize.
type ClientInfo struct {
	Name     *string `json:"name,omitempty"`
	Version  *string `json:"version,omitempty"`
	Language *string `json:"language,omitempty"`
}

// InitializeResult is the bridge's answer to initialize (docs/design.md §5): the protocol id
// (always "turngate.bridge.v1"), the bridge version and the sorted names of every method
// it serves (use them for feature detection, not the version).
type InitializeResult struct {
	Protocol string   `json:"protocol"`
	Version  string   `json:"version"`
	Methods  []string `json:"methods"`
}

// Ptr returns a pointer to v, for optional fields: Check{ResidualRisk: turngate.Ptr("…")}.
func Ptr[T any](v T) *T { return &v }
