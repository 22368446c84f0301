package config

import (
	"slices"
	"strings"
	"testing"
)

func TestWarningsNameTheNearestKey(t *testing.T) {
	tests := []struct {
		name, file string
		opts       Options
		want       []string
	}{
		{name: "typo at the top", file: `approval_polcy = "never"`,
			want: []string{"unknown config key approval_polcy (did you mean approval_policy?)"}},
		{name: "swapped letters", file: `modle = "x"`, want: []string{"unknown config key modle (did you mean model?)"}},
		{name: "nested", file: "[temporal]\nadress = \"x\"", want: []string{"unknown config key temporal.adress (did you mean temporal.address?)"}},
		{name: "provider field", file: "[model_providers.x]\nbase_ulr = \"x\"",
			want: []string{"unknown config key model_providers.x.base_ulr (did you mean model_providers.x.base_url?)"}},
		{name: "mcp server field", file: "[mcp_servers.\"my.srv\"]\ncommand = \"x\"\ncomand = \"y\"",
			want: []string{`unknown config key mcp_servers."my.srv".comand (did you mean mcp_servers."my.srv".command?)`}},
		{name: "override", opts: Options{Overrides: []string{"sandbox_mod=read-only"}},
			want: []string{"unknown config key sandbox_mod (did you mean sandbox_mode?)"}},
		{name: "Codex's own key", file: "[tui]\nnotifications = true", want: []string{"config key tui is Codex's and does nothing here (ignored)"}},
		{name: "nothing near", file: "[zzzz]\nnotifications = true", want: []string{"unknown config key zzzz (ignored)"}},
		{name: "several", file: "max_step = 3\nzzz = 1", want: []string{
			"unknown config key max_step (did you mean max_steps?)", "unknown config key zzz (ignored)"}},
		{name: "none", file: `model = "x"`, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t, tt.file)
			c, err := Load(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Warnings(); !slices.Equal(got, tt.want) {
				t.Fatalf("warnings %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"model", "model", 0}, {"modle", "model", 1}, {"approval_polcy", "approval_policy", 1}, {"kitten", "sitting", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// Codex's keys that a front end passes for a client (thread/start's
// config: what Codex's TUI sends with every thread) are quiet, also in
// strict mode; the same keys in config.toml, and a front end's keys that
// are not Codex's, are still warned about.
func TestClientCodexKeysAreQuiet(t *testing.T) {
	setup(t, "[tui]\ntheme = \"dark\"\n")
	c, err := Load(Options{Strict: false, Extra: map[string]any{"features.apps": true, "tui.alternate_screen": "never",
		"model_verbosty": "low", "show_raw_agent_reasoning": false}})
	if err != nil {
		t.Fatal(err)
	}
	// tui is in the file too: it is the user's.
	if q := c.QuietKeys(); len(q) != 2 || q[0] != "features.apps" || q[1] != "show_raw_agent_reasoning" {
		t.Errorf("quiet: %v", q)
	}
	w := c.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "model_verbosty (did you mean model_verbosity?)") || !strings.Contains(w[1], "key tui is Codex's") {
		t.Errorf("warnings: %q", w)
	}
	if _, err := Load(Options{Strict: true, Extra: map[string]any{"features.apps": true}}); err == nil {
		t.Fatal("strict mode took [tui] from the file")
	}
	setup(t, "")
	if _, err := Load(Options{Strict: true, Extra: map[string]any{"features.apps": true, "tui.x": 1.0}}); err != nil {
		t.Fatalf("strict mode refused a client's Codex keys: %v", err)
	}
	if _, err := Load(Options{Strict: true, Extra: map[string]any{"max_stepz": 1.0}}); err == nil {
		t.Fatal("strict mode took a front end's typo")
	}
}
