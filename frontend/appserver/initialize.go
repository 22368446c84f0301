package appserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

type initializeParams struct {
	ClientInfo struct {
		Name    string  `json:"name"`
		Title   *string `json:"title"`
		Version string  `json:"version"`
	} `json:"clientInfo"`
	Capabilities *struct {
		ExperimentalAPI           bool     `json:"experimentalApi"`
		OptOutNotificationMethods []string `json:"optOutNotificationMethods"`
	} `json:"capabilities"`
}

func (c *conn) initialize(id, raw json.RawMessage) {
	c.mu.Lock()
	already := c.initialized
	c.mu.Unlock()
	if already {
		c.fail(id, invalidRequest("Already initialized"))
		return
	}
	var p initializeParams
	if err := decodeParams(raw, &p, "clientInfo"); err != nil {
		c.fail(id, err)
		return
	}
	c.mu.Lock()
	c.initialized = true
	c.clientName = p.ClientInfo.Name
	if p.Capabilities != nil {
		c.experimental = p.Capabilities.ExperimentalAPI
		c.optOut = map[string]bool{}
		for _, m := range p.Capabilities.OptOutNotificationMethods {
			c.optOut[m] = true
		}
	}
	c.mu.Unlock()
	home := c.s.opts.Home
	if home == "" || !filepath.IsAbs(home) {
		home, _ = filepath.Abs(home)
	}
	ua := fmt.Sprintf("%s/%s (%s; %s) interpreter/%s", orDefault(p.ClientInfo.Name, "client"), c.s.opts.Version,
		platformOS(), runtime.GOARCH, c.s.opts.Version)
	if p.ClientInfo.Version != "" {
		ua += fmt.Sprintf(" (%s; %s)", p.ClientInfo.Name, p.ClientInfo.Version)
	}
	c.respond(id, protocol.InitializeResponse{
		UserAgent:      ua,
		CodexHome:      home,
		PlatformFamily: platformFamily(),
		PlatformOs:     platformOS(),
	})
}

func platformFamily() string {
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "unix"
}

func platformOS() string {
	if runtime.GOOS == "darwin" {
		return "macos"
	}
	return runtime.GOOS
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
