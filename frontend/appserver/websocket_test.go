package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/interpreter-dev/interpreter/workflows"
)

// serveWS serves b on a fresh endpoint at addr until the test ends.
func serveWS(t *testing.T, b Backend, addr string, opts ListenOptions) *Endpoint {
	t.Helper()
	ep, err := Listen(addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := New(b, Options{Version: "1.2.3", Home: "/home/test/.interpreter", Cwd: "/work",
		Now: func() time.Time { return time.Unix(1_800_000_100, 0) }})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ep.Serve(ctx, s) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after its context ended")
		}
	})
	return ep
}

// dialer reaches ws:// and unix:// endpoints as Codex's clients do (on a
// Unix socket: GET /rpc with Host localhost).
func dial(t *testing.T, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{HTTPHeader: header}
	if path, ok := strings.CutPrefix(url, "unix://"); ok {
		opts.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}}}
		url = "ws://localhost/rpc"
	}
	return websocket.Dial(ctx, url, opts)
}

// startWSClient is startClient over a WebSocket connection: each line the
// test writes goes out as one text message, each message comes back as a
// line (checked against the schema by read).
func startWSClient(t *testing.T, url string) (*testClient, *websocket.Conn) {
	t.Helper()
	ws, _, err := dial(t, url, nil)
	if err != nil {
		t.Fatalf("dialing %s: %v", url, err)
	}
	ws.SetReadLimit(-1)
	inR, inW := io.Pipe()
	c := &testClient{t: t, in: inW, lines: make(chan []byte, 1000), served: make(chan error, 1), methods: map[string]string{}}
	ctx := context.Background()
	go func() {
		sc := bufio.NewScanner(inR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if ws.Write(ctx, websocket.MessageText, sc.Bytes()) != nil {
				break
			}
		}
		ws.Close(websocket.StatusNormalClosure, "")
	}()
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				close(c.lines)
				c.served <- nil
				return
			}
			c.lines <- b
		}
	}()
	t.Cleanup(func() { c.close() })
	return c, ws
}

func wsRead(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return m
}

// Both transports serve the protocol, each connection its own session:
// one client's handshake is not another's.
func TestWebSocketTransports(t *testing.T) {
	for _, addr := range []string{"ws://127.0.0.1:0", "unix://" + filepath.Join(t.TempDir(), "app.sock")} {
		ep := serveWS(t, newFakeBackend(), addr, ListenOptions{})
		c1, _ := startWSClient(t, ep.URL())
		c2, _ := startWSClient(t, ep.URL())
		c1.initialize()
		wantError(t, c2.callErr("thread/list", map[string]any{}), -32600, "Not initialized")
		c1.call("thread/list", map[string]any{})
		c2.initialize()
		c2.call("thread/start", map[string]any{})
	}
}

// Bad messages are answered and the connection goes on; other clients are
// served throughout.
func TestWebSocketBadMessages(t *testing.T) {
	ep := serveWS(t, newFakeBackend(), "ws://127.0.0.1:0", ListenOptions{})
	other, _ := startWSClient(t, ep.URL())
	other.initialize()

	ws, _, err := dial(t, ep.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ctx := context.Background()
	send := func(typ websocket.MessageType, b []byte) {
		t.Helper()
		if err := ws.Write(ctx, typ, b); err != nil {
			t.Fatalf("writing: %v", err)
		}
	}
	errorOf := func(m map[string]any) (int, string) {
		t.Helper()
		e, ok := m["error"].(map[string]any)
		if !ok {
			t.Fatalf("want an error, got %v", m)
		}
		return int(e["code"].(float64)), e["message"].(string)
	}

	send(websocket.MessageText, []byte("this is not JSON"))
	if code, _ := errorOf(wsRead(t, ws)); code != codeParseError {
		t.Fatalf("non-JSON: code %d", code)
	}
	send(websocket.MessageBinary, []byte(`{"id":1,"method":"initialize"}`))
	if code, msg := errorOf(wsRead(t, ws)); code != codeInvalidRequest || !strings.Contains(msg, "binary") {
		t.Fatalf("binary message: %d %s", code, msg)
	}
	big := `{"id":"big","method":"thread/start","params":{"x":"` + strings.Repeat("a", MaxLineBytes) + `"}}`
	send(websocket.MessageText, []byte(big))
	m := wsRead(t, ws)
	if code, msg := errorOf(m); code != codeInvalidParams || m["id"] != "big" || !strings.Contains(msg, "maximum") {
		t.Fatalf("over-long message: %v", m)
	}
	other.call("thread/list", map[string]any{})

	send(websocket.MessageText, []byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`))
	if r := wsRead(t, ws); r["result"] == nil {
		t.Fatalf("initialize after bad messages: %v", r)
	}
}

// The upgrade is refused before any message for a missing or wrong token
// and for web pages; a plain HTTP request is told what the endpoint is.
func TestWebSocketUpgradeChecks(t *testing.T) {
	ep := serveWS(t, newFakeBackend(), "ws://127.0.0.1:0", ListenOptions{Token: "s3cret"})
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}, http.StatusUnauthorized},
		{"not bearer", http.Header{"Authorization": {"Basic s3cret"}}, http.StatusUnauthorized},
		{"a web page", http.Header{"Authorization": {"Bearer s3cret"}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
	} {
		_, resp, err := dial(t, ep.URL(), tc.header)
		if err == nil || resp == nil || resp.StatusCode != tc.status {
			t.Errorf("%s: err %v, response %v; want status %d", tc.name, err, resp, tc.status)
		}
	}
	ws, _, err := dial(t, ep.URL(), http.Header{"Authorization": {"Bearer s3cret"}})
	if err != nil {
		t.Fatalf("the right token: %v", err)
	}
	ws.CloseNow()

	resp, err := http.Get("http" + strings.TrimPrefix(ep.URL(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("plain GET without a token: %d", resp.StatusCode)
	}

	if _, err := Listen("ws://0.0.0.0:0", ListenOptions{}); !errors.Is(err, ErrNeedsToken) {
		t.Fatalf("a non-loopback bind without a token: %v", err)
	}
	if _, err := Listen("wss://127.0.0.1:0", ListenOptions{}); err == nil {
		t.Fatal("wss:// was accepted")
	}
}

// A client that never finishes its upgrade is cut off after the handshake
// timeout; a flood beyond MaxConns is refused with 503 and served again
// once connections leave; a client that disconnects with a request in
// flight leaves the others served.
func TestWebSocketSlowFloodAndDisconnect(t *testing.T) {
	b := newFakeBackend()
	ep := serveWS(t, b, "ws://127.0.0.1:0", ListenOptions{HandshakeTimeout: 300 * time.Millisecond, MaxConns: 3})
	hostPort := strings.TrimPrefix(ep.URL(), "ws://")

	slow, err := net.Dial("tcp", hostPort)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(slow); err != nil {
		t.Fatalf("the half-upgraded connection was not closed: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("closed after %s", d)
	}

	c1, _ := startWSClient(t, ep.URL())
	c1.initialize()
	_, ws2 := startWSClient(t, ep.URL())
	_, ws3 := startWSClient(t, ep.URL())
	_, resp, err := dial(t, ep.URL(), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a connection over MaxConns: %v %v", err, resp)
	}

	// One goes away mid-request: a turn/start it never reads the answer
	// of. The turn starts all the same.
	id := c1.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c1.read()
	ctx := context.Background()
	for _, m := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"turn/start","params":{"threadId":"` + id + `","input":[{"type":"text","text":"go"}]}}`,
	} {
		if err := ws2.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { info, _ := b.Thread(ctx, id); return info.View != nil && info.View.RunningTurn != "" }, "the turn to start")
	ws2.CloseNow()
	ws3.CloseNow()

	// Their slots come back; the remaining client is served throughout.
	c1.call("thread/list", map[string]any{})
	waitFor(t, func() bool {
		ws, _, err := dial(t, ep.URL(), nil)
		if err != nil {
			return false
		}
		ws.CloseNow()
		return true
	}, "a slot to free up")
}

// Two clients on one thread both get its turn's events; one that
// unsubscribes, or disconnects, stops getting them, and the turn goes on
// for the other.
func TestWebSocketTwoClientsOnOneThread(t *testing.T) {
	b := newFakeBackend()
	ep := serveWS(t, b, "ws://127.0.0.1:0", ListenOptions{})
	c1, _ := startWSClient(t, ep.URL())
	c1.initialize()
	id := c1.call("thread/start", map[string]any{})["thread"].(map[string]any)["id"].(string)
	c1.read()
	r, _ := c1.response(c1.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "work"}}}))
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)

	c2, _ := startWSClient(t, ep.URL())
	c2.initialize()
	c2.call("thread/resume", map[string]any{"threadId": id})
	c3, ws3 := startWSClient(t, ep.URL())
	c3.initialize()
	c3.call("thread/resume", map[string]any{"threadId": id})

	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_0", Type: workflows.ItemAgentMessage, Text: "one"}})
	for _, c := range []*testClient{c1, c2, c3} {
		untilItem(c, "item_0")
	}

	ws3.CloseNow()
	if st := c2.call("thread/unsubscribe", map[string]any{"threadId": id})["status"]; st != "unsubscribed" {
		t.Fatalf("thread/unsubscribe: %v", st)
	}
	if st := c2.call("thread/unsubscribe", map[string]any{"threadId": id})["status"]; st != "notSubscribed" {
		t.Fatalf("a second thread/unsubscribe: %v", st)
	}

	b.emit(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemAgentMessage, Text: "two"}})
	b.end(turnID, workflows.StatusCompleted, "")
	untilItem(c1, "item_1")
	c1.until("turn/completed")
	_, notes := c2.response(c2.request("thread/list", map[string]any{}))
	if len(notes) != 0 {
		t.Fatalf("the unsubscribed client still got %v", methods(notes))
	}
}

// untilItem reads until the item/completed of item id.
func untilItem(c *testClient, id string) {
	c.t.Helper()
	for {
		got := c.until("item/completed")
		if params(got[len(got)-1])["item"].(map[string]any)["id"] == id {
			return
		}
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
