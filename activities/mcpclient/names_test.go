package mcpclient

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestNamerSanitizesAndKeepsNamesUnique(t *testing.T) {
	long := strings.Repeat("t", 80)
	cases := []struct {
		name   string
		taken  []string
		calls  [][2]string
		want   []string
		prefix []string // when the exact name depends on a hash
	}{
		{name: "plain", calls: [][2]string{{"everything", "echo"}}, want: []string{"mcp__everything__echo"}},
		{name: "dashes kept", calls: [][2]string{{"my-server", "get-sum"}}, want: []string{"mcp__my-server__get-sum"}},
		{name: "dots and spaces replaced", calls: [][2]string{{"docs.v2", "search pages"}}, want: []string{"mcp__docs_v2__search_pages"}},
		{name: "unicode replaced", calls: [][2]string{{"srv", "héllo"}}, want: []string{"mcp__srv__h__llo"}},
		{name: "clash gets a hash suffix", calls: [][2]string{{"a", "x.y"}, {"a", "x_y"}},
			want: []string{"mcp__a__x_y", ""}, prefix: []string{"", "mcp__a__x_y_"}},
		{name: "taken by the harness", taken: []string{"mcp__s__shell"}, calls: [][2]string{{"s", "shell"}},
			want: []string{""}, prefix: []string{"mcp__s__shell_"}},
		{name: "too long is cut with a hash", calls: [][2]string{{"srv", long}, {"srv", long + "2"}},
			want: []string{"", ""}, prefix: []string{"mcp__srv__ttt", "mcp__srv__ttt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := NewNamer(c.taken...)
			seen := map[string]bool{}
			for _, tk := range c.taken {
				seen[tk] = true
			}
			for i, call := range c.calls {
				got := n.Name(call[0], call[1])
				if !providerName.MatchString(got) {
					t.Errorf("%v: %q is not a valid provider tool name", call, got)
				}
				if seen[got] {
					t.Errorf("%v: %q is not unique", call, got)
				}
				seen[got] = true
				if c.want[i] != "" && got != c.want[i] {
					t.Errorf("%v: got %q, want %q", call, got, c.want[i])
				}
				if c.prefix != nil && c.prefix[i] != "" && !strings.HasPrefix(got, c.prefix[i]) {
					t.Errorf("%v: got %q, want prefix %q", call, got, c.prefix[i])
				}
				// Deterministic: a fresh namer given the same sequence agrees.
			}
			again := NewNamer(c.taken...)
			n2 := NewNamer(c.taken...)
			for _, call := range c.calls {
				if a, b := again.Name(call[0], call[1]), n2.Name(call[0], call[1]); a != b {
					t.Errorf("not deterministic: %q vs %q", a, b)
				}
			}
		})
	}
}

func TestServerAllowedFilters(t *testing.T) {
	cases := []struct {
		name     string
		enabled  []string
		disabled []string
		tool     string
		want     bool
	}{
		{"no filters", nil, nil, "echo", true},
		{"allow list hit", []string{"echo"}, nil, "echo", true},
		{"allow list miss", []string{"echo"}, nil, "add", false},
		{"empty allow list allows none", []string{}, nil, "echo", false},
		{"deny list", nil, []string{"echo"}, "echo", false},
		{"deny after allow", []string{"echo", "add"}, []string{"add"}, "add", false},
		{"deny list miss", nil, []string{"add"}, "echo", true},
	}
	for _, c := range cases {
		s := Server{Name: "s", Command: "x", EnabledTools: c.enabled, DisabledTools: c.disabled}
		if got := s.Allowed(c.tool); got != c.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", c.name, c.tool, got, c.want)
		}
	}
}

func TestServerValidate(t *testing.T) {
	cases := []struct {
		name string
		s    Server
		want string // "" for valid
	}{
		{"stdio", Server{Name: "a", Command: "npx"}, ""},
		{"http", Server{Name: "a", URL: "http://x", ProtocolVersion: "legacy"}, ""},
		{"both", Server{Name: "a", Command: "x", URL: "http://x"}, "mcp_servers.a.command and mcp_servers.a.url"},
		{"neither", Server{Name: "a"}, "mcp_servers.a: set command"},
		{"bad protocol", Server{Name: "a", URL: "http://x", ProtocolVersion: "2024"}, "mcp_servers.a.protocol_version"},
		{"stdio with bearer", Server{Name: "a", Command: "x", BearerTokenEnvVar: "T"}, "mcp_servers.a.command"},
		{"http with args", Server{Name: "a", URL: "http://x", Args: []string{"-v"}}, "mcp_servers.a.url"},
		{"negative timeout", Server{Name: "a", Command: "x", ToolTimeout: -time.Second}, "mcp_servers.a.tool_timeout_sec"},
	}
	for _, c := range cases {
		err := c.s.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestRedactorAndTruncate(t *testing.T) {
	r := NewRedactor([]string{"tok-4f9a2c"}, []string{"s3cret-value", "short", `quo"te-value`})
	cases := []struct{ in, want string }{
		{"token tok-4f9a2c here", "token [REDACTED] here"},
		{"env s3cret-value!", "env [REDACTED]!"},
		{"short values stay: short", "short values stay: short"},
		{`json {"v":"quo\"te-value"}`, `json {"v":"[REDACTED]"}`},
	}
	for _, c := range cases {
		if got := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	out := Truncate(strings.Repeat("é", 100), 51, "srv", "big")
	if !strings.HasPrefix(out, strings.Repeat("é", 25)+"\n[output of mcp server \"srv\" tool \"big\" truncated: 200 bytes, the first 50 shown]") {
		t.Errorf("Truncate: %q", out)
	}
	if got := Truncate("small", 10, "s", "t"); got != "small" {
		t.Errorf("Truncate small: %q", got)
	}
}

func TestMerge(t *testing.T) {
	base := []Server{{Name: "a", Command: "x"}}
	got, dropped := Merge(base, []Server{{Name: "b", URL: "http://b"}, {Name: "a", URL: "http://a"}})
	if len(got) != 2 || got[1].Name != "b" || got[0].Command != "x" {
		t.Errorf("Merge = %+v", got)
	}
	if len(dropped) != 1 || !strings.Contains(dropped[0], `"a"`) {
		t.Errorf("dropped = %v", dropped)
	}
}
