package turngate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a fake bridge: when TURNGATE_GO_FAKE_BRIDGE is set, TestMain
// runs fakeBridge instead of the tests. Each request's method picks a misbehaviour, so the
// transport's failure paths are exercised without the real bridge.
//
//	initialize     {protocol: $FAKE_PROTOCOL or "turngate.bridge.v1", version, methods}
//	shutdown       {} and exit 0 (ignored when FAKE_IGNORE_SHUTDOWN=1: also ignores EOF)
//	echo           result = params
//	sleep          {ms}: answer {} after ms milliseconds (concurrently with other requests)
//	progress       {n}: n "progress" notifications {request_id, event:"tick", i}, then {}
//	garbage        the line `not json`
//	scalar         the line `42`
//	no_result      {"jsonrpc":"2.0","id":N}
//	both           result and error in one response
//	bad_version    {"jsonrpc":"1.0","id":N,"result":{}}
//	string_id      a response whose id is a string
//	null_id_error  an error response with id null
//	unknown_id     a response to an id never sent, then {} to this one
//	fail           the error {code, path, message, rpc} from params
//	bad_digest     {"effect_digest": 42} (a result of the wrong type)
//	die            writes params.stderr to stderr and exits with params.code
//	big            {blob: "x" * params.n}; with params.total, a line of exactly total bytes
//	stdout_close   closes stdout and keeps running (until stdin EOF)
//
// With FAKE_RECORD=1 every other method is answered with an internal_error whose message
// is the request line itself, so a test can see exactly what a typed method sent.
func TestMain(m *testing.M) {
	if os.Getenv("TURNGATE_GO_FAKE_BRIDGE") == "1" {
		fakeBridge()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeClient starts a Client whose bridge is this test binary in fake mode.
func fakeClient(t testing.TB, env []string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{
		WithCommand(os.Args[0], "-test.run=^$"),
		WithEnv(append([]string{"TURNGATE_GO_FAKE_BRIDGE=1", "GORACE=atexit_sleep_ms=0"}, env...)...),
	}, opts...)
	c, err := Start(t.Context(), opts...)
	if err != nil {
		t.Fatalf("start fake bridge: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func fakeBridge() {
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = out.WriteString(s + "\n")
		_ = out.Flush()
	}
	reply := func(id json.RawMessage, result string) {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	}
	ignoreShutdown := os.Getenv("FAKE_IGNORE_SHUTDOWN") == "1"
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			if ignoreShutdown {
				time.Sleep(time.Hour)
			}
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(line), &req) != nil {
			send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"code":"parse_error","message":"parse error"}}}`)
			continue
		}
		var p struct {
			Ms      int    `json:"ms"`
			N       int    `json:"n"`
			Total   int    `json:"total"`
			Code    int    `json:"code"`
			Stderr  string `json:"stderr"`
			Err     string `json:"err"`
			Path    string `json:"path"`
			Message string `json:"message"`
			RPC     int    `json:"rpc"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if os.Getenv("FAKE_RECORD") == "1" && req.Method != "initialize" && req.Method != "shutdown" {
			msg, _ := json.Marshal(strings.TrimSpace(line))
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"recorded","data":{"code":"internal_error","message":%s}}}`, req.ID, msg))
			continue
		}
		switch req.Method {
		case "initialize":
			proto := os.Getenv("FAKE_PROTOCOL")
			if proto == "" {
				proto = ProtocolName
			}
			reply(req.ID, fmt.Sprintf(`{"protocol":%q,"version":"0.0.0-fake","methods":["echo"]}`, proto))
		case "shutdown":
			if ignoreShutdown {
				continue
			}
			reply(req.ID, `{}`)
			return
		case "echo":
			params := req.Params
			if params == nil {
				params = json.RawMessage(`null`)
			}
			reply(req.ID, string(params))
		case "sleep":
			go func(id json.RawMessage, ms int) {
				time.Sleep(time.Duration(ms) * time.Millisecond)
				reply(id, `{}`)
			}(req.ID, p.Ms)
		case "progress":
			for i := range p.N {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"progress","params":{"request_id":%s,"event":"tick","i":%d}}`, req.ID, i))
			}
			reply(req.ID, `{}`)
		case "garbage":
			send(`not json`)
		case "scalar":
			send(`42`)
		case "no_result":
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s}`, req.ID))
		case "both":
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":-32603,"message":"x","data":{"code":"internal_error","message":"x"}}}`, req.ID))
		case "bad_version":
			send(fmt.Sprintf(`{"jsonrpc":"1.0","id":%s,"result":{}}`, req.ID))
		case "string_id":
			send(`{"jsonrpc":"2.0","id":"abc","result":{}}`)
		case "null_id_error":
			send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"code":"parse_error","message":"parse error: bad"}}}`)
		case "unknown_id":
			send(`{"jsonrpc":"2.0","id":999999,"result":{}}`)
			reply(req.ID, `{}`)
		case "fail":
			data := map[string]any{"code": p.Err, "message": p.Message}
			if p.Path != "" {
				data["path"] = p.Path
			}
			errObj, _ := json.Marshal(map[string]any{"code": p.RPC, "message": p.Message, "data": data})
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, req.ID, errObj))
		case "bad_digest":
			reply(req.ID, `{"effect_digest":42}`)
		case "die":
			_, _ = os.Stderr.WriteString(p.Stderr)
			os.Exit(p.Code)
		case "big": // n bytes of blob, or a whole line of exactly total bytes
			n := p.N
			if p.Total > 0 {
				n = p.Total - len(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"blob":""}}`, req.ID))
			}
			reply(req.ID, `{"blob":"`+strings.Repeat("x", n)+`"}`)
		case "stdout_close":
			mu.Lock()
			_ = os.Stdout.Close()
			mu.Unlock()
		default:
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found: %s","data":{"code":"method_not_found","message":"method not found: %s"}}}`, req.ID, req.Method, req.Method))
		}
	}
}
