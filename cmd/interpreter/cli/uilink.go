package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// devUIFile is where a running `interpreter dev` says where its Web UI
// is, so front ends on the same home can print links to it whatever the
// ports.
const devUIFile = "dev-ui.json"

type devUI struct {
	Address string `json:"address"`
	UIURL   string `json:"ui_url"`
}

// writeDevUI records the dev server's UI (none: removes the record); the
// returned function removes it when the server stops.
func writeDevUI(home, address, uiURL string) (func(), error) {
	path := filepath.Join(home, devUIFile)
	if uiURL == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return func() {}, fmt.Errorf("removing %s: %w", path, err)
		}
		return func() {}, nil
	}
	b, err := json.Marshal(devUI{Address: address, UIURL: uiURL})
	if err != nil {
		return func() {}, fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return func() {}, fmt.Errorf("writing %s: %w", path, err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// uiURL is where the Web UI of the connected server is: temporal.ui_url;
// else the UI a running `interpreter dev` on this home serves for that
// address; else, for the default address, the dev server's default UI
// when something listens there.
func uiURL(cfg *config.Config, b *backend) string {
	if cfg.Temporal.UIURL != "" {
		return strings.TrimRight(cfg.Temporal.UIURL, "/")
	}
	if b.embedded {
		return ""
	}
	if u := recordedUI(cfg.Home(), cfg.Temporal.Address); u != "" {
		return u
	}
	if cfg.Temporal.Address == "127.0.0.1:7233" && (b.background || portFree(8233) != nil) {
		return "http://127.0.0.1:8233"
	}
	return ""
}

// recordedUI reads the dev server's record for address, if its UI answers.
func recordedUI(home, address string) string {
	raw, err := os.ReadFile(filepath.Join(home, devUIFile))
	if err != nil {
		return ""
	}
	var d devUI
	if json.Unmarshal(raw, &d) != nil || d.Address != address || d.UIURL == "" {
		return ""
	}
	host := strings.TrimPrefix(strings.TrimPrefix(d.UIURL, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	c, err := net.DialTimeout("tcp", host, 500*time.Millisecond)
	if err != nil {
		return ""
	}
	_ = c.Close()
	return strings.TrimRight(d.UIURL, "/")
}
