package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// setup makes an isolated home with the given config.toml (none when
// content is empty) and clears the environment Load reads.
func setup(t *testing.T, content string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("INTERPRETER_HOME", home)
	t.Setenv("CODEX_OSS_BASE_URL", "")
	if content != "" {
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func mustLoad(t *testing.T, opts Options) *Config {
	t.Helper()
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	home := setup(t, "")
	c := mustLoad(t, Options{Strict: true})
	if c.Home() != home {
		t.Errorf("Home() = %q, want %q", c.Home(), home)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"model_provider", c.ModelProvider, "openai"},
		{"approval_policy", c.ApprovalPolicy, "on-request"},
		{"sandbox_mode", c.SandboxMode, "workspace-write"},
		{"max_steps", c.MaxSteps, 200},
		{"turn_timeout", c.TurnTimeout.Duration, time.Hour},
		{"profile", c.Profile, ""},
		{"temporal.address", c.Temporal.Address, "127.0.0.1:7233"},
		{"temporal.namespace", c.Temporal.Namespace, "default"},
		{"temporal.task_queue", c.Temporal.TaskQueue, "interpreter"},
		{"temporal.embedded", c.Temporal.Embedded, (*bool)(nil)},
		{"temporal.host_queue", c.Temporal.HostQueue, DefaultHostQueue("interpreter")},
		{"providers", c.ProviderIDs(), []string{"anthropic", "demo", "openai", "oss"}},
		{"unknown", len(c.UnknownKeys()), 0},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
	if !strings.HasPrefix(c.Temporal.HostQueue, "interpreter-host-") {
		t.Errorf("host_queue = %q", c.Temporal.HostQueue)
	}
}

func TestBuiltinProviders(t *testing.T) {
	setup(t, "")
	t.Setenv("CODEX_OSS_BASE_URL", "http://gpu:8000/v1")
	c := mustLoad(t, Options{})
	want := map[string]Provider{
		"openai":    {Name: "OpenAI", BaseURL: "https://api.openai.com/v1", WireAPI: "responses", EnvKey: "OPENAI_API_KEY"},
		"oss":       {Name: "Open Source (Ollama)", BaseURL: "http://gpu:8000/v1", WireAPI: "chat"},
		"anthropic": {Name: "Anthropic", BaseURL: "https://api.anthropic.com", WireAPI: "messages", EnvKey: "ANTHROPIC_API_KEY"},
		"demo":      {Name: "Demo (scripted, built in)", WireAPI: "responses"},
	}
	for id, w := range want {
		p, err := c.Provider(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, w) {
			t.Errorf("provider %s = %+v, want %+v", id, p, w)
		}
	}
	t.Setenv("CODEX_OSS_BASE_URL", "")
	if p, _ := mustLoad(t, Options{}).Provider("oss"); p.BaseURL != DefaultOSSBaseURL {
		t.Errorf("oss base_url = %q", p.BaseURL)
	}
}

func TestPrecedenceAndProviders(t *testing.T) {
	setup(t, `
model = "file-model"
max_steps = 10
turn_timeout = "30m"

[temporal]
address = "temporal:7233"
embedded = false

[model_providers.openai]
base_url = "http://proxy/v1"

[model_providers.local]
base_url = "http://local/v1"
env_key = "LOCAL_KEY"
http_headers = { X-Team = "a" }
request_max_retries = 3
`)
	c := mustLoad(t, Options{
		Strict:    true,
		Overrides: []string{"max_steps=20", "model_providers.local.wire_api=chat", `mcp_servers."my.server".command=npx`},
		Extra:     map[string]any{"max_steps": float64(30), "temporal.namespace": "ns"},
	})
	if c.Model != "file-model" || c.MaxSteps != 30 || c.TurnTimeout.Duration != 30*time.Minute {
		t.Errorf("model=%q max_steps=%d turn_timeout=%v", c.Model, c.MaxSteps, c.TurnTimeout)
	}
	if c.Temporal.Address != "temporal:7233" || c.Temporal.Namespace != "ns" || c.Temporal.TaskQueue != "interpreter" {
		t.Errorf("temporal = %+v", c.Temporal)
	}
	if c.Temporal.Embedded == nil || *c.Temporal.Embedded {
		t.Errorf("temporal.embedded = %v, want false", c.Temporal.Embedded)
	}
	openai, _ := c.Provider("openai")
	if openai.BaseURL != "http://proxy/v1" || openai.Name != "OpenAI" || openai.EnvKey != "OPENAI_API_KEY" {
		t.Errorf("openai = %+v (user fields must overlay built-in ones)", openai)
	}
	local, err := c.Provider("local")
	if err != nil {
		t.Fatal(err)
	}
	if local.Name != "local" || local.WireAPI != "chat" || local.EnvKey != "LOCAL_KEY" ||
		local.HTTPHeaders["X-Team"] != "a" || local.RequestMaxRetries == nil || *local.RequestMaxRetries != 3 {
		t.Errorf("local = %+v", local)
	}
	if got := c.MCPServers["my.server"]["command"]; got != "npx" {
		t.Errorf("mcp_servers.\"my.server\".command = %#v", got)
	}
}

func TestParseOverride(t *testing.T) {
	tests := []struct {
		in      string
		key     string
		value   any
		wantErr string
	}{
		{in: "max_steps=42", key: "max_steps", value: int64(42)},
		{in: "tls=true", key: "tls", value: true},
		{in: "x=1.5", key: "x", value: 1.5},
		{in: "model=o3", key: "model", value: "o3"},
		{in: "model=gpt-4.1-mini", key: "model", value: "gpt-4.1-mini"},
		{in: `model="o3"`, key: "model", value: "o3"},
		{in: `model='a b'`, key: "model", value: "a b"},
		{in: `model="unbalanced`, key: "model", value: "unbalanced"},
		{in: "model=", key: "model", value: ""},
		{in: "a.list=[1, 2]", key: "a.list", value: []any{int64(1), int64(2)}},
		{in: `a.t={x = 1, y = "z"}`, key: "a.t", value: map[string]any{"x": int64(1), "y": "z"}},
		{in: "url=http://h:1/v1?a=b", key: "url", value: "http://h:1/v1?a=b"},
		{in: "v=1\nw = 2", key: "v", value: "1\nw = 2"},
		{in: " model_providers.x.base_url = http://x ", key: "model_providers.x.base_url", value: "http://x"},
		{in: `mcp_servers."a.b".command=npx`, key: `mcp_servers."a.b".command`, value: "npx"},
		{in: "model", wantErr: "want key=value"},
		{in: "=1", wantErr: "empty key"},
		{in: "a..b=1", wantErr: "invalid key"},
		{in: "a b=1", wantErr: "invalid key"},
	}
	for _, tt := range tests {
		key, value, err := ParseOverride(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseOverride(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseOverride(%q): %v", tt.in, err)
			continue
		}
		if key != tt.key || !reflect.DeepEqual(value, tt.value) {
			t.Errorf("ParseOverride(%q) = %q, %#v; want %q, %#v", tt.in, key, value, tt.key, tt.value)
		}
	}
}

func TestOverrideTypesReachConfig(t *testing.T) {
	setup(t, "")
	c := mustLoad(t, Options{Strict: true, Overrides: []string{
		"turn_timeout=90",
		"temporal.tls=true",
		`temporal={task_queue = "q"}`,
		`model="quoted model"`,
		"model_providers.p={base_url = \"http://p\", query_params = {api-version = \"1\"}}",
		"otel.exporter=[1, 2]",
	}})
	if c.TurnTimeout.Duration != 90*time.Second {
		t.Errorf("turn_timeout = %v", c.TurnTimeout)
	}
	if !c.Temporal.TLS || c.Temporal.TaskQueue != "q" || c.Temporal.Address != DefaultTemporalAddr {
		t.Errorf("temporal = %+v (inline tables merge into the table)", c.Temporal)
	}
	if c.Model != "quoted model" {
		t.Errorf("model = %q", c.Model)
	}
	if p, _ := c.Provider("p"); p.BaseURL != "http://p" || p.QueryParams["api-version"] != "1" || p.WireAPI != "responses" {
		t.Errorf("provider p = %+v", p)
	}
	if !reflect.DeepEqual(c.Otel["exporter"], []any{int64(1), int64(2)}) {
		t.Errorf("otel.exporter = %#v", c.Otel["exporter"])
	}
}

func TestProfiles(t *testing.T) {
	file := `
model = "base"
sandbox_mode = "read-only"
profile = "fast"

[profiles.fast]
model = "fast-model"
temporal.task_queue = "fast-q"

[profiles.careful]
approval_policy = "untrusted"
`
	tests := []struct {
		name      string
		opts      Options
		profile   string
		model     string
		approval  string
		taskQueue string
		wantErr   string
	}{
		{name: "from file", profile: "fast", model: "fast-model", approval: "on-request", taskQueue: "fast-q"},
		{name: "option wins", opts: Options{Profile: "careful"}, profile: "careful", model: "base", approval: "untrusted", taskQueue: "interpreter"},
		{name: "override selects", opts: Options{Overrides: []string{"profile=careful"}}, profile: "careful", model: "base", approval: "untrusted", taskQueue: "interpreter"},
		{name: "override beats profile", opts: Options{Overrides: []string{"model=cli"}}, profile: "fast", model: "cli", approval: "on-request", taskQueue: "fast-q"},
		{name: "extra beats override", opts: Options{Overrides: []string{"model=cli"}, Extra: map[string]any{"model": "extra"}}, profile: "fast", model: "extra", approval: "on-request", taskQueue: "fast-q"},
		{name: "profile from override", opts: Options{Profile: "new", Overrides: []string{"profiles.new.max_steps=5"}}, profile: "new", model: "base", approval: "on-request", taskQueue: "interpreter"},
		{name: "missing", opts: Options{Profile: "nope"}, wantErr: `profile "nope" not found (known: careful, fast)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t, file)
			tt.opts.Strict = true
			c, err := Load(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Profile != tt.profile || c.Model != tt.model || c.ApprovalPolicy != tt.approval ||
				c.Temporal.TaskQueue != tt.taskQueue || c.SandboxMode != "read-only" {
				t.Errorf("got profile=%q model=%q approval=%q task_queue=%q sandbox=%q",
					c.Profile, c.Model, c.ApprovalPolicy, c.Temporal.TaskQueue, c.SandboxMode)
			}
			if len(c.Profiles) < 2 {
				t.Errorf("profiles = %v", c.Profiles)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		opts    Options
		wantErr string
	}{
		{name: "top level", file: `modle = "x"`, wantErr: `unknown config key "modle"`},
		{name: "nested", file: "[temporal]\nadress = \"x\"", wantErr: `unknown config key "temporal.adress"`},
		{name: "provider field", file: "[model_providers.x]\nbase_ulr = \"x\"", wantErr: `unknown config key "model_providers.x.base_ulr"`},
		{name: "unknown table", file: "[tui]\nnotifications = true", wantErr: `unknown config key "tui`},
		{name: "override", opts: Options{Overrides: []string{"temporal.adress=x"}}, wantErr: `unknown config key "temporal.adress"`},
		{name: "extra", opts: Options{Extra: map[string]any{"max_stepz": 1.0}}, wantErr: `unknown config key "max_stepz"`},
		{name: "selected profile", file: "profile = \"p\"\n[profiles.p]\nmodle = \"x\"", wantErr: `unknown config key "modle"`},
		{name: "several", file: "b = 1\na = 2", wantErr: `unknown config keys "a", "b"`},
		{name: "raw sections unchecked", file: "[otel]\nwhatever = { x = 1 }\n[profiles.unused]\nbogus = 1"},
		{name: "mcp server field", file: "[mcp_servers.s]\ncommand = \"x\"\ncomand = \"y\"", wantErr: `unknown config key "mcp_servers.s.comand"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t, tt.file)
			strict := tt.opts
			strict.Strict = true
			_, err := Load(strict)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("strict: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("strict error = %v, want %q", err, tt.wantErr)
			}
			// Lenient mode loads and reports what it ignored.
			c, err := Load(tt.opts)
			if err != nil {
				t.Fatalf("lenient: %v", err)
			}
			if len(c.UnknownKeys()) == 0 {
				t.Errorf("lenient: UnknownKeys empty")
			}
			if c.MaxSteps != DefaultMaxSteps {
				t.Errorf("lenient: max_steps = %d", c.MaxSteps)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		opts    Options
		wantErr []string
	}{
		{name: "malformed", file: "model = \"x\"\n\nsandbox_mode = = 1\n", wantErr: []string{FileName + ":3:"}},
		{name: "approval", file: `approval_policy = "sometimes"`, wantErr: []string{`invalid approval_policy "sometimes"`, "untrusted, on-failure, on-request, never"}},
		{name: "sandbox", opts: Options{Overrides: []string{"sandbox_mode=yolo"}}, wantErr: []string{`invalid sandbox_mode "yolo"`, "read-only, workspace-write, danger-full-access"}},
		{name: "wire api", file: "[model_providers.x]\nwire_api = \"grpc\"", wantErr: []string{`invalid model_providers.x.wire_api "grpc"`, "responses, chat, messages"}},
		{name: "wire api in profile", opts: Options{Profile: "p", Overrides: []string{"profiles.p.model_providers.openai.wire_api=soap"}}, wantErr: []string{`model_providers.openai.wire_api "soap"`}},
		{name: "unknown provider", opts: Options{Overrides: []string{"model_provider=nope"}}, wantErr: []string{`unknown model provider "nope" (known: anthropic, demo, openai, oss)`}},
		{name: "type", opts: Options{Overrides: []string{"max_steps=lots"}}, wantErr: []string{`config key "max_steps"`}},
		{name: "nested type", file: "[temporal]\ntls = \"yes\"", wantErr: []string{`config key "temporal.tls"`}},
		{name: "duration", opts: Options{Overrides: []string{"turn_timeout=soon"}}, wantErr: []string{`config key "turn_timeout"`, `invalid duration "soon"`}},
		{name: "not a table", file: `model = "x"`, opts: Options{Overrides: []string{"model.name=y"}}, wantErr: []string{`config key "model"`, "table"}},
		{name: "override conflict", opts: Options{Overrides: []string{"temporal.address=x", "temporal.address.port=1"}}, wantErr: []string{`config key "temporal.address" is not a table`}},
		{name: "bad override", opts: Options{Overrides: []string{"model"}}, wantErr: []string{`invalid override "model"`}},
		{name: "profile sets profile", opts: Options{Profile: "p", Overrides: []string{"profiles.p.profile=q"}}, wantErr: []string{`"profiles.p.profile"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup(t, tt.file)
			for _, strict := range []bool{false, true} {
				tt.opts.Strict = strict
				_, err := Load(tt.opts)
				if err == nil {
					t.Fatalf("strict=%v: no error", strict)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("strict=%v: error %q does not contain %q", strict, err, w)
					}
				}
			}
		})
	}
}

func TestExtraJSONValues(t *testing.T) {
	setup(t, "")
	c := mustLoad(t, Options{Strict: true, Extra: map[string]any{
		"max_steps":    float64(12),
		"turn_timeout": float64(1.5),
		"model":        nil, // ignored
		"model_providers.openai": map[string]any{
			"request_max_retries": float64(4),
			"http_headers":        map[string]any{"X-A": "b"},
		},
		"memories": map[string]any{"list": []any{float64(1), "two", nil}},
	}})
	if c.MaxSteps != 12 || c.TurnTimeout.Duration != 1500*time.Millisecond || c.Model != "" {
		t.Errorf("max_steps=%d turn_timeout=%v model=%q", c.MaxSteps, c.TurnTimeout, c.Model)
	}
	p, _ := c.Provider("openai")
	if p.RequestMaxRetries == nil || *p.RequestMaxRetries != 4 || p.HTTPHeaders["X-A"] != "b" || p.EnvKey != "OPENAI_API_KEY" {
		t.Errorf("openai = %+v", p)
	}
	if got := c.Memories["list"]; !reflect.DeepEqual(got, []any{int64(1), "two"}) {
		t.Errorf("memories.list = %#v", got)
	}
}

func TestHome(t *testing.T) {
	t.Setenv("INTERPRETER_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if got := DefaultHome(); got != "/home/someone/.interpreter" {
		t.Errorf("DefaultHome() = %q", got)
	}
	t.Setenv("INTERPRETER_HOME", "/srv/interp")
	if got := DefaultHome(); got != "/srv/interp" {
		t.Errorf("DefaultHome() = %q", got)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`model = "from-opts-home"`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, Options{Home: dir})
	if c.Model != "from-opts-home" || c.Home() != dir {
		t.Errorf("model=%q home=%q", c.Model, c.Home())
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"1h30m", 90 * time.Minute, true},
		{"45", 45 * time.Second, true},
		{"1_000", 1000 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		var d Duration
		err := d.UnmarshalText([]byte(tt.in))
		if (err == nil) != tt.ok || (tt.ok && d.Duration != tt.want) {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v ok=%v", tt.in, d.Duration, err, tt.want, tt.ok)
		}
	}
}

// TestShellSnapshotFeature: Codex's [features] shell_snapshot turns the
// snapshots off; the other Codex features stay Codex's (a warning).
func TestShellSnapshotFeature(t *testing.T) {
	setup(t, "")
	if c := mustLoad(t, Options{Strict: true}); !c.ShellSnapshots() {
		t.Error("snapshots are off by default")
	}
	setup(t, "[features]\nshell_snapshot = false\nweb_search_request = true\n")
	c := mustLoad(t, Options{})
	if c.ShellSnapshots() {
		t.Error("[features] shell_snapshot = false left them on")
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "features.web_search_request is Codex's") {
		t.Errorf("warnings %q", w)
	}
	setup(t, "")
	if c := mustLoad(t, Options{Strict: true, Overrides: []string{"features.shell_snapshot=false"}}); c.ShellSnapshots() {
		t.Error("-c features.shell_snapshot=false left them on")
	}
}

// Codex's switch features.unified_exec is honored (strictly: it is a
// known key), and other feature keys stay Codex's (a warning, not an error).
func TestUnifiedExecFeature(t *testing.T) {
	setup(t, "")
	if c := mustLoad(t, Options{Strict: true}); !c.UnifiedExec() {
		t.Error("unified exec is off by default")
	}
	c := mustLoad(t, Options{Strict: true, Overrides: []string{"features.unified_exec=false"}})
	if c.UnifiedExec() {
		t.Error("features.unified_exec=false left unified exec on")
	}
	c = mustLoad(t, Options{Overrides: []string{"features.unified_exec=false", "features.web_search_request=true"}})
	if w := c.Warnings(); c.UnifiedExec() || len(w) != 1 || !strings.Contains(w[0], "features.web_search_request is Codex's") {
		t.Errorf("unified exec %v, warnings %q", c.UnifiedExec(), w)
	}
}

// The sub-agent tools are on by default, as in Codex 0.171, and off with
// [features] multi_agent = false; [agents] bounds them with Codex's key
// names.
func TestMultiAgentFeature(t *testing.T) {
	setup(t, "")
	if c := mustLoad(t, Options{Strict: true}); !c.MultiAgent() {
		t.Error("sub-agents are off by default")
	}
	if c := mustLoad(t, Options{Strict: true, Overrides: []string{"features.multi_agent=false"}}); c.MultiAgent() {
		t.Error("multi_agent = false left sub-agents on")
	}
	setup(t, "[features]\nmulti_agent = true\n[agents]\nmax_threads = 3\nmax_depth = 2\njob_max_runtime_seconds = 60\nmodels = [\"small\"]\n")
	c := mustLoad(t, Options{Strict: true})
	if !c.MultiAgent() || c.Agents.MaxThreads != 3 || c.Agents.MaxDepth != 2 || c.Agents.JobMaxRuntimeSeconds != 60 || len(c.Agents.Models) != 1 {
		t.Errorf("got %v %+v", c.MultiAgent(), c.Agents)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
}
