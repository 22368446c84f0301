package devserver

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The proxy adds the column script to the app's page only, and serves it.
func TestUIProxyAddsTheColumnScriptToTheAppPage(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/render" {
			_, _ = io.WriteString(w, "<html><head></head><body>markdown</body></html>")
			return
		}
		_, _ = io.WriteString(w, "<html><head></head><body><script>__sveltekit_x = {}</script></body></html>")
	}))
	defer upstream.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := uiProxy("", strings.TrimPrefix(upstream.URL, "http://"), uiDefaultsScript("default", []string{"Status", "InterpreterSummary"}))
	go func() { _ = p.Serve(l) }()
	defer p.Close()
	get := func(path string) string {
		resp, err := http.Get("http://" + l.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if page := get("/namespaces/default/workflows"); !strings.Contains(page, `<head><script src="`+uiDefaultsPath+`"></script>`) {
		t.Fatalf("app page without the script:\n%s", page)
	}
	if frame := get("/render"); strings.Contains(frame, uiDefaultsPath) {
		t.Fatalf("markdown frame got the script:\n%s", frame)
	}
	script := get(uiDefaultsPath)
	for _, want := range []string{`"namespace-workflow-table-columns"`, `all["default"] = [{"label":"Status"},{"label":"InterpreterSummary"}]`, `if (all["default"] && all["default"].length) return;`} {
		if !strings.Contains(script, want) {
			t.Fatalf("script lacks %s:\n%s", want, script)
		}
	}
}
