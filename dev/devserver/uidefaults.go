package devserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
)

// The Web UI's workflow list shows Status, Workflow ID, Run ID, Type, Start
// and End until a user picks columns; it has no Summary column and no
// server setting for the defaults. The embedded UI is served behind a small
// proxy that adds one script to its page: when this browser has no column
// choice for the namespace yet, it starts with ListColumns, so a thread's
// prompt and status are in the list without configuring anything. A user's
// own choice is never overwritten (Options.UIListColumns).

// uiDefaultsPath serves the script; same origin, so the page's
// script-src 'self' allows it.
const uiDefaultsPath = "/_interpreter/ui-defaults.js"

// columnsKey is where the UI keeps the list's columns per namespace
// (localStorage, JSON: {"<namespace>": [{"label": "..."}]}).
const columnsKey = "namespace-workflow-table-columns"

// uiDefaultsScript seeds the list's columns (labels: the UI's own, such as
// "Status", or a custom search attribute's name).
func uiDefaultsScript(namespace string, labels []string) []byte {
	columns := make([]map[string]string, 0, len(labels))
	for _, l := range labels {
		columns = append(columns, map[string]string{"label": l})
	}
	ns, _ := json.Marshal(namespace)
	cols, _ := json.Marshal(columns)
	key, _ := json.Marshal(columnsKey)
	return fmt.Appendf(nil, `(function () {
  try {
    var all = JSON.parse(localStorage.getItem(%s) || "{}") || {};
    if (all[%s] && all[%s].length) return;
    all[%s] = %s;
    localStorage.setItem(%s, JSON.stringify(all));
  } catch (e) {}
})();
`, key, ns, ns, ns, cols, key)
}

// uiProxy serves the UI (listening on upstream) on addr, with the script
// added to the app's page.
func uiProxy(addr, upstream string, script []byte) *http.Server {
	target := &url.URL{Scheme: "http", Host: upstream}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		// Without the browser's Accept-Encoding the transport asks for gzip
		// itself and hands ModifyResponse the decoded body to edit.
		r.Out.Header.Del("Accept-Encoding")
	}}
	tag := []byte(`<head><script src="` + uiDefaultsPath + `"></script>`)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		// Only the app's page: markdown frames (/render) are HTML too.
		if bytes.Contains(body, []byte("__sveltekit")) {
			body = bytes.Replace(body, []byte("<head>"), tag, 1)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc(uiDefaultsPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(script)
	})
	mux.Handle("/", rp)
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}

// ensureSearchAttributes registers the attributes a database made by an
// older build lacks (they are otherwise registered only when the namespace
// is created).
func ensureSearchAttributes(ctx context.Context, address, namespace string, want map[string]enumspb.IndexedValueType) error {
	if len(want) == 0 {
		return nil
	}
	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, Logger: quietLogger{}})
	if err != nil {
		return fmt.Errorf("dialing the server: %w", err)
	}
	defer c.Close()
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("listing search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, typ := range want {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = typ
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing}); err != nil {
		return fmt.Errorf("adding search attributes: %w", err)
	}
	return nil
}

// quietLogger drops the SDK client's log lines.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
