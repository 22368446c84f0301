package appserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// bearerMatches compares an Authorization header with the token in
// constant time.
func bearerMatches(header, token string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// serveWebSocket upgrades the request and serves the protocol on it: one
// JSON-RPC message per text message. Codex's clients also offer zstd
// compression (x-codex-app-server-compression); not answering it keeps
// them uncompressed.
func (e *Endpoint) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// The Origin check is serveHTTP's (any Origin is refused).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		e.s.log.Debug("websocket upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	// Messages over the limit are read to their end and answered as on
	// stdio, not a reason to drop the connection.
	ws.SetReadLimit(-1)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go e.keepAlive(ctx, ws)
	err = e.s.serve(ctx, &frameWriter{ctx: ctx, ws: ws, timeout: e.opts.WriteTimeout}, func(ctx context.Context, ch chan<- lineOrErr) {
		readMessages(ctx, ws, ch)
	})
	if err != nil {
		e.s.log.Debug("websocket connection ended", "remote", r.RemoteAddr, "err", err)
		ws.Close(websocket.StatusInternalError, "app-server: connection failed")
		return
	}
	ws.Close(websocket.StatusNormalClosure, "")
}

// keepAlive pings the client so that a peer that vanished without closing
// (a laptop that slept, a dropped network) is noticed and its connection
// released.
func (e *Endpoint) keepAlive(ctx context.Context, ws *websocket.Conn) {
	t := time.NewTicker(e.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, e.opts.PingInterval)
		err := ws.Ping(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			ws.CloseNow()
			return
		}
	}
}

// readMessages delivers a connection's messages to ch, as readLines does
// for stdin: a message over MaxLineBytes is read to its end and delivered
// as tooLong with its first bytes; a binary message as binary.
func readMessages(ctx context.Context, ws *websocket.Conn, ch chan<- lineOrErr) {
	for {
		l := readMessage(ctx, ws)
		select {
		case ch <- l:
		case <-ctx.Done():
			return
		}
		if l.err != nil {
			return
		}
	}
}

func readMessage(ctx context.Context, ws *websocket.Conn) lineOrErr {
	typ, r, err := ws.Reader(ctx)
	if err != nil {
		if websocket.CloseStatus(err) != -1 || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return lineOrErr{err: io.EOF}
		}
		return lineOrErr{err: err}
	}
	if typ == websocket.MessageBinary {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return lineOrErr{err: err}
		}
		return lineOrErr{binary: true}
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxLineBytes+1))
	if err != nil {
		return lineOrErr{err: err}
	}
	if len(b) <= MaxLineBytes {
		return lineOrErr{line: b}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return lineOrErr{err: err}
	}
	return lineOrErr{line: bytes.Clone(b[:headBytes]), tooLong: true}
}

// frameWriter sends each Write (one JSON value and its newline, from
// lineWriter) as one text message.
type frameWriter struct {
	ctx     context.Context
	ws      *websocket.Conn
	timeout time.Duration
}

func (f *frameWriter) Write(b []byte) (int, error) {
	ctx, cancel := context.WithTimeout(f.ctx, f.timeout)
	defer cancel()
	if err := f.ws.Write(ctx, websocket.MessageText, bytes.TrimSuffix(b, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}
