package config

import (
	"slices"
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
