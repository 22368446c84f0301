// Command wsrecord is a WebSocket proxy that records every message each
// way as one JSON line, {"conn":N,"dir":"in"|"out","msg":...} ("in" is
// client to server), the format of the app-server's --transcript. It
// sits between a Codex client and any app-server (ours or Codex's own),
// so the two servers' answers to the same client can be compared.
//
//	wsrecord -listen 127.0.0.1:PORT -upstream ws://127.0.0.1:UP -out FILE
//
// It is a development aid; nothing in the binary uses it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	upstream := flag.String("upstream", "", "app-server WebSocket URL to forward to")
	out := flag.String("out", "", "JSONL file to append the messages to")
	flag.Parse()
	if *upstream == "" || *out == "" {
		log.Fatal("wsrecord: -upstream and -out are required")
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		log.Fatalf("wsrecord: %v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("wsrecord: %v", err)
	}
	// The address line is what a script or test waits for.
	fmt.Printf("wsrecord listening on ws://%s\n", ln.Addr())
	r := &recorder{w: f, upstream: *upstream}
	log.Fatal(http.Serve(ln, r))
}

// recorder proxies each connection and writes its messages.
type recorder struct {
	mu       sync.Mutex
	w        *os.File
	upstream string
	conns    atomic.Int64
}

func (r *recorder) record(conn int64, dir string, msg []byte) {
	raw := json.RawMessage(msg)
	if !json.Valid(msg) {
		raw, _ = json.Marshal(string(msg))
	}
	b, _ := json.Marshal(struct {
		Conn int64           `json:"conn"`
		Dir  string          `json:"dir"`
		Msg  json.RawMessage `json:"msg"`
	}{conn, dir, raw})
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	hdr := http.Header{}
	if auth := req.Header.Get("Authorization"); auth != "" {
		hdr.Set("Authorization", auth)
	}
	up, _, err := websocket.Dial(req.Context(), r.upstream, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	up.SetReadLimit(-1)
	down, err := websocket.Accept(w, req, nil)
	if err != nil {
		_ = up.CloseNow()
		return
	}
	down.SetReadLimit(-1)
	conn := r.conns.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.pump(ctx, cancel, conn, "in", down, up) }()
	go func() { defer wg.Done(); r.pump(ctx, cancel, conn, "out", up, down) }()
	wg.Wait()
	_ = up.CloseNow()
	_ = down.CloseNow()
}

// pump copies messages from src to dst until either side ends.
func (r *recorder) pump(ctx context.Context, cancel func(), conn int64, dir string, src, dst *websocket.Conn) {
	defer cancel()
	for {
		typ, msg, err := src.Read(ctx)
		if err != nil {
			return
		}
		r.record(conn, dir, msg)
		if err := dst.Write(ctx, typ, msg); err != nil {
			return
		}
	}
}
