package config

import (
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestRemoveMCPTableKeepsTheRest(t *testing.T) {
	const file = `# top comment
model = "x"

[mcp_servers.docs]   # the docs server
command = "npx"
args = ["docs"]

[mcp_servers.docs.env]
TOKEN = "abc"

[mcp_servers."docs-2"]
command = "keep"

[temporal]
# a comment that stays
address = "h:1"
`
	cases := []struct {
		name, text, server string
		found              bool
		want               string
		wantErr            string
	}{
		{name: "table and sub-table", text: file, server: "docs", found: true,
			want: "# top comment\nmodel = \"x\"\n\n[mcp_servers.\"docs-2\"]\ncommand = \"keep\"\n\n[temporal]\n# a comment that stays\naddress = \"h:1\"\n"},
		{name: "quoted name", text: file, server: "docs-2", found: true},
		{name: "absent", text: file, server: "nope", found: false, want: file},
		{name: "inline definition is not cut", text: "[mcp_servers]\nx = { command = \"a\" }\n", server: "x", wantErr: "edit config.toml by hand"},
		{name: "dotted keys are not cut", text: "mcp_servers.y.command = \"a\"\n", server: "y", wantErr: "edit config.toml by hand"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, found, err := RemoveMCPTable(c.text, c.server)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || found != c.found {
				t.Fatalf("found %v, err %v", found, err)
			}
			if c.want != "" && out != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, c.want)
			}
			var tree map[string]any
			if err := toml.Unmarshal([]byte(out), &tree); err != nil {
				t.Fatalf("the result does not parse: %v\n%s", err, out)
			}
			servers, _ := tree["mcp_servers"].(map[string]any)
			if _, still := servers[c.server]; still {
				t.Errorf("%s is still there:\n%s", c.server, out)
			}
			if tree["temporal"] == nil {
				t.Errorf("[temporal] was lost")
			}
		})
	}
}

func TestTOMLStringRoundTrips(t *testing.T) {
	for _, s := range []string{"plain", `quo"te`, `back\slash`, "new\nline\ttab", "ctl\x01", "ünï código"} {
		var v struct{ K string }
		if err := toml.Unmarshal([]byte("K = "+tomlString(s)), &v); err != nil || v.K != s {
			t.Errorf("%q: got %q, %v", s, v.K, err)
		}
	}
}
