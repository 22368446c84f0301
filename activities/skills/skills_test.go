package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseFrontmatter(t *testing.T) {
	long := strings.Repeat("x", MaxDescriptionLen+1)
	cases := []struct {
		name, in    string
		want        Frontmatter
		wantErr     string
		bodyNotRead bool
	}{
		{name: "plain", in: "---\nname: deploy\ndescription: Deploy the app.\n---\n# Body\n",
			want: Frontmatter{Name: "deploy", Description: "Deploy the app."}},
		{name: "folded description and other keys", in: "---\nname: review\nlicense: MIT\ndescription: >\n  Review a change\n  before merging.\nmetadata:\n  version: 1\n---\nbody",
			want: Frontmatter{Name: "review", Description: "Review a change before merging."}},
		{name: "crlf and bom", in: "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\n",
			want: Frontmatter{Name: "a", Description: "b"}},
		{name: "quoted", in: "---\nname: \"x-y\"\ndescription: 'It''s here: yes'\n---\n",
			want: Frontmatter{Name: "x-y", Description: "It's here: yes"}},
		{name: "runtime main", in: "---\nname: a\ndescription: b\nankole-runtime: main\n---\n",
			want: Frontmatter{Name: "a", Description: "b", Runtime: RuntimeMain}},
		{name: "runtime background_job", in: "---\nname: a\ndescription: b\nankole-runtime: background_job\n---\n",
			want: Frontmatter{Name: "a", Description: "b", Runtime: RuntimeBackgroundJob}},
		{name: "runtime any", in: "---\nname: a\ndescription: b\nankole-runtime: any\n---\n",
			want: Frontmatter{Name: "a", Description: "b", Runtime: RuntimeAny}},
		{name: "runtime unknown", in: "---\nname: a\ndescription: b\nankole-runtime: nightly\n---\n",
			wantErr: `"ankole-runtime" is "nightly": it must be any, main or background_job`},
		{name: "runtime not a string", in: "---\nname: a\ndescription: b\nankole-runtime: [main]\n---\n",
			wantErr: `"ankole-runtime" must be a string`},
		{name: "no frontmatter", in: "# Just markdown\n", wantErr: "no frontmatter"},
		{name: "empty file", in: "", wantErr: "empty file"},
		{name: "not closed", in: "---\nname: a\ndescription: b\n", wantErr: "not closed"},
		{name: "missing name", in: "---\ndescription: b\n---\n", wantErr: `no "name"`},
		{name: "missing description", in: "---\nname: a\n---\n", wantErr: `no "description"`},
		{name: "name not a string", in: "---\nname: [a, b]\ndescription: b\n---\n", wantErr: `"name" must be a string`},
		{name: "empty name", in: "---\nname: \"  \"\ndescription: b\n---\n", wantErr: `"name" is empty`},
		{name: "long name", in: "---\nname: " + strings.Repeat("n", 65) + "\ndescription: b\n---\n", wantErr: "longer than 64"},
		{name: "long description", in: "---\nname: a\ndescription: " + long + "\n---\n", wantErr: "longer than 1024"},
		{name: "bad yaml", in: "---\nname: a\n  description: : b\n---\n", wantErr: "not valid YAML"},
		{name: "body not read", in: "---\nname: a\ndescription: b\n---\n" + strings.Repeat("body line\n", 100000),
			want: Frontmatter{Name: "a", Description: "b"}, bodyNotRead: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(tc.in)}
			got, err := ParseFrontmatter(r)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if tc.bodyNotRead && r.n > maxFrontmatter+1 {
				t.Fatalf("read %d bytes of a large body", r.n)
			}
		})
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestParseOpenAIYAML(t *testing.T) {
	const file = "/repo/.agents/skills/docs/agents/openai.yaml"
	cases := []struct {
		name, in string
		want     []MCPDependency
		// wantErr are substrings of the error; field and index are checked
		// on the *SchemaError when set.
		wantErr []string
		field   string
		index   int
	}{
		{name: "empty", in: "", want: nil},
		{name: "interface only", in: "interface:\n  display_name: Docs\n", want: nil},
		{name: "http", in: `
dependencies:
  tools:
    - type: mcp
      value: docs
      description: Docs search
      transport: streamable_http
      url: https://docs.example.com/mcp
      protocol_version: "2025-06-18"
      bearer_token_env_var: DOCS_TOKEN
      enabled_tools: [search, fetch]
`, want: []MCPDependency{{Name: "docs", Description: "Docs search", Transport: TransportHTTP, URL: "https://docs.example.com/mcp",
			ProtocolVersion: "2025-06-18", BearerTokenEnvVar: "DOCS_TOKEN", EnabledTools: []string{"search", "fetch"}}}},
		{name: "stdio list and string", in: `
dependencies:
  tools:
    - {type: mcp, value: a, transport: stdio, command: [srv, --flag, "two words"], disabled_tools: [rm]}
    - {type: mcp, value: b, transport: stdio, command: "npx -y pkg"}
`, want: []MCPDependency{
			{Name: "a", Transport: TransportStdio, Command: "srv", Args: []string{"--flag", "two words"}, DisabledTools: []string{"rm"}},
			{Name: "b", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "pkg"}}}},
		{name: "identical twice counts once", in: `
dependencies:
  tools:
    - {type: mcp, value: a, transport: stdio, command: srv}
    - {type: mcp, value: a, transport: stdio, command: srv}
`, want: []MCPDependency{{Name: "a", Transport: TransportStdio, Command: "srv", Args: []string{}}}},
		{name: "unknown entry field", in: `
dependencies:
  tools:
    - {type: mcp, value: docs, transport: streamable_http, url: "https://x/mcp", headers: {a: b}}
`, wantErr: []string{file + ":4", `dependencies.tools[0] (value "docs")`, `field "headers"`, "unknown field"}, field: "headers", index: 0},
		{name: "command with http", in: `
dependencies:
  tools:
    - {type: mcp, value: ok, transport: stdio, command: x}
    - {type: mcp, value: docs, transport: streamable_http, url: "https://x/mcp", command: srv}
`, wantErr: []string{`dependencies.tools[1] (value "docs")`, `field "command"`, "belongs to transport stdio, not streamable_http"}, field: "command", index: 1},
		{name: "url with stdio", in: `
dependencies:
  tools:
    - {type: mcp, value: local, transport: stdio, command: srv, url: "https://x/mcp"}
`, wantErr: []string{`(value "local")`, `field "url"`, "belongs to transport streamable_http, not stdio"}, field: "url"},
		{name: "bearer with stdio", in: `
dependencies:
  tools:
    - {type: mcp, value: local, transport: stdio, command: srv, bearer_token_env_var: T}
`, wantErr: []string{`field "bearer_token_env_var"`, "belongs to transport streamable_http"}, field: "bearer_token_env_var"},
		{name: "wrong type", in: `
dependencies:
  tools:
    - {type: cli, value: gh}
`, wantErr: []string{`field "type"`, `"cli" is not supported`}, field: "type"},
		{name: "missing type", in: "dependencies:\n  tools:\n    - {value: gh, transport: stdio, command: gh}\n", wantErr: []string{`field "type"`, "missing"}, field: "type"},
		{name: "missing value", in: "dependencies:\n  tools:\n    - {type: mcp, transport: stdio, command: gh}\n", wantErr: []string{"dependencies.tools[0]: ", `field "value"`, "missing"}, field: "value"},
		{name: "bad server name", in: "dependencies:\n  tools:\n    - {type: mcp, value: 'a b', transport: stdio, command: gh}\n", wantErr: []string{`field "value"`}, field: "value"},
		{name: "missing transport", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, command: gh}\n", wantErr: []string{`field "transport"`, "missing"}, field: "transport"},
		{name: "unknown transport", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: sse, url: 'https://x'}\n", wantErr: []string{`field "transport"`, `"sse" is not supported`}, field: "transport"},
		{name: "stdio without command", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: stdio}\n", wantErr: []string{`field "command"`, "missing"}, field: "command"},
		{name: "http without url", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: streamable_http}\n", wantErr: []string{`field "url"`, "missing"}, field: "url"},
		{name: "url not http", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: streamable_http, url: 'file:///etc'}\n", wantErr: []string{`field "url"`, "not an http(s) URL"}, field: "url"},
		{name: "url with credentials", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: streamable_http, url: 'https://u:p@x/mcp'}\n", wantErr: []string{`field "url"`, "credentials"}, field: "url"},
		{name: "token instead of variable name", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: streamable_http, url: 'https://x/mcp', bearer_token_env_var: 'sk-live-abc.def'}\n",
			wantErr: []string{`field "bearer_token_env_var"`, "never the token itself"}, field: "bearer_token_env_var"},
		{name: "filters not a list", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, transport: stdio, command: x, enabled_tools: search}\n", wantErr: []string{`field "enabled_tools"`, "list"}, field: "enabled_tools"},
		{name: "field twice", in: "dependencies:\n  tools:\n    - {type: mcp, value: a, value: b, transport: stdio, command: x}\n", wantErr: []string{`field "value"`}, field: "value"},
		{name: "same server different", in: `
dependencies:
  tools:
    - {type: mcp, value: a, transport: stdio, command: x}
    - {type: mcp, value: a, transport: stdio, command: y}
`, wantErr: []string{`dependencies.tools[1] (value "a")`, "declared twice with a different command"}, field: "value", index: 1},
		{name: "unknown top-level field", in: "dependecies:\n  tools: []\n", wantErr: []string{`field "dependecies"`, "unknown field"}, field: "dependecies", index: -1},
		{name: "unknown dependencies field", in: "dependencies:\n  tool: []\n", wantErr: []string{`field "dependencies.tool"`}, field: "dependencies.tool", index: -1},
		{name: "tools not a list", in: "dependencies:\n  tools: {a: b}\n", wantErr: []string{`field "dependencies.tools"`, "must be a list"}, field: "dependencies.tools", index: -1},
		{name: "entry not a mapping", in: "dependencies:\n  tools:\n    - docs\n", wantErr: []string{"dependencies.tools[0]", "must be a mapping"}},
		{name: "not yaml", in: "dependencies: [\n", wantErr: []string{file, "not valid YAML"}, index: -1},
		{name: "65 dependencies", in: manyDeps(65), wantErr: []string{"declares 65 dependencies", "at most 64"}, field: "dependencies.tools", index: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOpenAIYAML(file, []byte(tc.in))
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; got %+v", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %q, want it to contain %q", err, w)
					}
				}
				var se *SchemaError
				if !errors.As(err, &se) {
					t.Fatalf("err is %T, want *SchemaError", err)
				}
				if se.File != file {
					t.Errorf("file = %q", se.File)
				}
				if tc.field != "" && se.Field != tc.field {
					t.Errorf("field = %q, want %q", se.Field, tc.field)
				}
				if se.Index != tc.index {
					t.Errorf("index = %d, want %d", se.Index, tc.index)
				}
				if strings.Contains(err.Error(), "sk-live") {
					t.Errorf("the error repeats a token: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
	if _, err := ParseOpenAIYAML(file, []byte(manyDeps(64))); err != nil {
		t.Fatalf("64 dependencies: %v", err)
	}
}

func manyDeps(n int) string {
	var b strings.Builder
	b.WriteString("dependencies:\n  tools:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {type: mcp, value: s%d, transport: stdio, command: srv%d}\n", i, i)
	}
	return b.String()
}

func dep(name, url string) MCPDependency {
	return MCPDependency{Name: name, Transport: TransportHTTP, URL: url}
}

func TestDependencies(t *testing.T) {
	a := Skill{Name: "a", Dependencies: []MCPDependency{dep("docs", "https://d/mcp"), dep("x", "https://x/mcp")}}
	b := Skill{Name: "b", Dependencies: []MCPDependency{dep("docs", "https://d/mcp"), dep("y", "https://y/mcp")}}
	got, err := Dependencies([]Skill{a, b, {Name: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range got {
		names = append(names, d.Name+"="+strings.Join(d.Skills, "+"))
	}
	if want := "docs=a+b x=a y=b"; strings.Join(names, " ") != want {
		t.Fatalf("got %v, want %s", names, want)
	}
	if len(a.Dependencies[0].Skills) != 0 {
		t.Fatal("the input was changed")
	}

	filters := dep("docs", "https://d/mcp")
	filters.EnabledTools = []string{"search", "fetch"}
	reordered := filters
	reordered.EnabledTools = []string{"fetch", "search"}
	if _, err := Dependencies([]Skill{{Name: "a", Dependencies: []MCPDependency{filters}}, {Name: "b", Dependencies: []MCPDependency{reordered}}}); err != nil {
		t.Fatalf("the same filters in another order conflict: %v", err)
	}

	conflicts := []struct {
		name   string
		change func(*MCPDependency)
		what   string
	}{
		{"url", func(d *MCPDependency) { d.URL = "https://other/mcp" }, "url"},
		{"transport", func(d *MCPDependency) { d.Transport, d.URL, d.Command = TransportStdio, "", "srv" }, "transport"},
		{"bearer", func(d *MCPDependency) { d.BearerTokenEnvVar = "TOKEN" }, "bearer_token_env_var"},
		{"protocol", func(d *MCPDependency) { d.ProtocolVersion = "2025-03-26" }, "protocol_version"},
		{"description", func(d *MCPDependency) { d.Description = "other" }, "description"},
		{"enabled", func(d *MCPDependency) { d.EnabledTools = []string{"search"} }, "enabled_tools"},
		{"disabled", func(d *MCPDependency) { d.DisabledTools = []string{"delete"} }, "disabled_tools"},
	}
	for _, c := range conflicts {
		t.Run("conflict/"+c.name, func(t *testing.T) {
			other := dep("docs", "https://d/mcp")
			c.change(&other)
			_, err := Dependencies([]Skill{{Name: "search-docs", Dependencies: []MCPDependency{dep("docs", "https://d/mcp")}},
				{Name: "write-docs", Dependencies: []MCPDependency{other}}})
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a conflict", err)
			}
			for _, w := range []string{`"search-docs"`, `"write-docs"`, `MCP server "docs"`, c.what} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestSettingsEnabled(t *testing.T) {
	s := Skill{Name: "deploy", Path: "/r/.agents/skills/deploy/SKILL.md", Scope: ScopeRepo}
	cases := []struct {
		name string
		st   Settings
		want bool
	}{
		{"default", Settings{}, true},
		{"by name", Settings{Rules: []Rule{{Name: "deploy", Enabled: false}}}, false},
		{"by SKILL.md path", Settings{Rules: []Rule{{Path: "/r/.agents/skills/deploy/SKILL.md"}}}, false},
		{"by folder", Settings{Rules: []Rule{{Path: "/r/.agents/skills/deploy/"}}}, false},
		{"other path", Settings{Rules: []Rule{{Path: "/other/SKILL.md"}}}, true},
		{"last rule wins", Settings{Rules: []Rule{{Name: "deploy"}, {Path: s.Path, Enabled: true}}}, true},
		{"bundled off does not touch repo", Settings{NoBundled: true}, true},
	}
	for _, tc := range cases {
		if got := tc.st.Enabled(s); got != tc.want {
			t.Errorf("%s: enabled = %v, want %v", tc.name, got, tc.want)
		}
	}
	if (Settings{NoBundled: true}).Enabled(Skill{Name: "x", Scope: ScopeBundled}) {
		t.Error("bundled skill enabled with bundled off")
	}
}

func writeSkill(t *testing.T, dir, name, desc, yaml string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nSteps.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if yaml != "" {
		if err := os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, FileName)
}

const docsYAML = "dependencies:\n  tools:\n    - {type: mcp, value: docs, transport: streamable_http, url: 'https://d/mcp'}\n"

// Repository skills (nearest folder first, up to the repository root)
// win over the user's, which win over the bundled ones; a malformed skill
// is skipped with a warning naming its file; a disabled one is listed as
// such and its openai.yaml is not read.
func TestDiscoverPrecedence(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "pkg", "sub")
	home := filepath.Join(base, "home")
	bundledDir := filepath.Join(base, "bundled-out")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Above the repository root: never searched.
	writeSkill(t, filepath.Join(base, ".agents", "skills", "outside"), "outside", "above the repo root", "")
	nearest := writeSkill(t, filepath.Join(sub, ".agents", "skills", "shared"), "shared", "from pkg/sub", "")
	writeSkill(t, filepath.Join(repo, ".agents", "skills", "shared"), "shared", "from the repo root", "")
	rootOnly := writeSkill(t, filepath.Join(repo, ".agents", "skills", "root-only"), "root-only", "repo root skill", docsYAML)
	writeSkill(t, filepath.Join(repo, ".agents", "skills", "broken-yaml"), "broken-yaml", "bad deps", "dependencies:\n  tools:\n    - {type: mcp, value: docs, transport: stdio, command: x, url: 'https://d'}\n")
	disabled := writeSkill(t, filepath.Join(repo, ".agents", "skills", "off"), "off", "turned off", "this: is not read\n")
	if err := os.MkdirAll(filepath.Join(repo, ".agents", "skills", "no-frontmatter"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".agents", "skills", "no-frontmatter", FileName), []byte("# hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".agents", "skills", "not-a-skill"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(home, ".agents", "skills", "root-only"), "root-only", "user copy", "")
	userOnly := writeSkill(t, filepath.Join(home, ".agents", "skills", "user-only"), "user-only", "user skill", "")
	bundled := fstest.MapFS{
		"user-only/SKILL.md":    {Data: []byte("---\nname: user-only\ndescription: bundled copy\n---\n")},
		"bundled-one/SKILL.md":  {Data: []byte("---\nname: bundled-one\ndescription: bundled skill\n---\nBody.\n")},
		"bundled-one/notes.txt": {Data: []byte("more")},
	}

	res := Discover(Options{Cwd: sub, UserHome: home, Bundled: bundled, BundledDir: bundledDir,
		Settings: Settings{Rules: []Rule{{Path: disabled}}}})
	var got []string
	for _, s := range res.Skills {
		got = append(got, s.Scope+":"+s.Name+":"+s.Description)
	}
	want := []string{"repo:shared:from pkg/sub", "repo:root-only:repo root skill", "user:user-only:user skill", "bundled:bundled-one:bundled skill"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("skills:\n got %q\nwant %q", got, want)
	}
	if res.Skills[0].Path != nearest || res.Skills[1].Path != rootOnly || res.Skills[2].Path != userOnly {
		t.Errorf("paths: %+v", res.Skills)
	}
	if p := res.Skills[3].Path; p != filepath.Join(bundledDir, "bundled-one", FileName) {
		t.Errorf("bundled path %s", p)
	}
	if b, err := os.ReadFile(filepath.Join(bundledDir, "bundled-one", "notes.txt")); err != nil || string(b) != "more" {
		t.Errorf("bundled files not written: %q %v", b, err)
	}
	if len(res.Skills[1].Dependencies) != 1 || res.Skills[1].Dependencies[0].Name != "docs" {
		t.Errorf("root-only dependencies: %+v", res.Skills[1].Dependencies)
	}
	if len(res.Disabled) != 1 || res.Disabled[0].Name != "off" {
		t.Errorf("disabled: %+v", res.Disabled)
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, w.String())
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings: %q", warnings)
	}
	for _, w := range []string{`skill "broken-yaml" skipped`, `(value "docs")`, `field "url"`, filepath.Join("broken-yaml", "agents", "openai.yaml")} {
		if !strings.Contains(warnings[0], w) {
			t.Errorf("warning %q lacks %q", warnings[0], w)
		}
	}
	if !strings.Contains(warnings[1], filepath.Join("no-frontmatter", FileName)) || !strings.Contains(warnings[1], "no frontmatter") {
		t.Errorf("warning %q", warnings[1])
	}

	// Outside a repository only the working directory's skills count.
	res = Discover(Options{Cwd: filepath.Join(base, ".agents", "..")})
	if len(res.Skills) != 1 || res.Skills[0].Name != "outside" {
		t.Errorf("outside a repository: %+v", res.Skills)
	}
	// Bundled off: not written, not offered.
	res = Discover(Options{Cwd: sub, Bundled: bundled, BundledDir: filepath.Join(base, "not-written"), Settings: Settings{NoBundled: true}})
	for _, s := range res.Skills {
		if s.Scope == ScopeBundled {
			t.Errorf("bundled skill offered: %+v", s)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "not-written")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bundled skills written while off: %v", err)
	}
}

// The skills bundled with the binary parse.
func TestBundledSkillsParse(t *testing.T) {
	res := Discover(Options{Bundled: Bundled(), BundledDir: t.TempDir()})
	if len(res.Warnings) > 0 || len(res.Skills) < 2 {
		t.Fatalf("bundled: %+v", res)
	}
	for _, s := range res.Skills {
		if s.Scope != ScopeBundled {
			t.Errorf("%s: scope %s", s.Name, s.Scope)
		}
	}
}

// BenchmarkDiscover: 20 repository skills with large bodies and an
// openai.yaml each, plus the bundled skills.
func BenchmarkDiscover(b *testing.B) {
	base := b.TempDir()
	os.MkdirAll(filepath.Join(base, ".git"), 0o755)
	for i := range 20 {
		dir := filepath.Join(base, ".agents", "skills", fmt.Sprintf("s%02d", i))
		os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
		os.WriteFile(filepath.Join(dir, FileName), []byte(fmt.Sprintf("---\nname: s%02d\ndescription: Skill %d.\n---\n%s", i, i, strings.Repeat("Body line.\n", 20000))), 0o644)
		os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(manyDeps(8)), 0o644)
	}
	out := filepath.Join(base, "bundled")
	b.ResetTimer()
	for b.Loop() {
		res := Discover(Options{Cwd: base, Bundled: Bundled(), BundledDir: out})
		if len(res.Skills) != 22 || len(res.Warnings) > 0 {
			b.Fatalf("%d skills, %v", len(res.Skills), res.Warnings)
		}
	}
}

func TestServerConfig(t *testing.T) {
	stdio := MCPDependency{Name: "t", Transport: TransportStdio, Command: "srv", Args: []string{"-v"}, DisabledTools: []string{"rm"}}
	if got, want := stdio.ServerConfig(), map[string]any{"command": "srv", "args": []string{"-v"}, "disabled_tools": []string{"rm"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("stdio: %v", got)
	}
	http := MCPDependency{Name: "d", Transport: TransportHTTP, URL: "https://d/mcp", BearerTokenEnvVar: "TOK", ProtocolVersion: "2025-06-18", EnabledTools: []string{"s"}}
	if got, want := http.ServerConfig(), map[string]any{"url": "https://d/mcp", "bearer_token_env_var": "TOK", "protocol_version": "2025-06-18", "enabled_tools": []string{"s"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("http: %v", got)
	}
}

// Past MaxSkills, or past MaxListingBytes of listing, skills are skipped
// with a warning (earlier ones kept).
func TestDiscoverBounds(t *testing.T) {
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, ".git"), 0o755)
	for i := range MaxSkills + 3 {
		writeSkill(t, filepath.Join(base, ".agents", "skills", fmt.Sprintf("s%03d", i)), fmt.Sprintf("s%03d", i), "short", "")
	}
	res := Discover(Options{Cwd: base})
	if len(res.Skills) != MaxSkills || len(res.Warnings) != 3 || !strings.Contains(res.Warnings[0].String(), `skill "s100" skipped: more than 100 skills`) {
		t.Fatalf("%d skills, warnings %v", len(res.Skills), res.Warnings)
	}

	base = t.TempDir()
	os.MkdirAll(filepath.Join(base, ".git"), 0o755)
	long := strings.Repeat("d", MaxDescriptionLen)
	for i := range 40 {
		writeSkill(t, filepath.Join(base, ".agents", "skills", fmt.Sprintf("l%02d", i)), fmt.Sprintf("l%02d", i), long, "")
	}
	res = Discover(Options{Cwd: base})
	if len(res.Skills) < 25 || len(res.Skills) >= 32 || len(res.Warnings) != 40-len(res.Skills) ||
		!strings.Contains(res.Warnings[0].String(), "the skills listing would pass 32 KB") {
		t.Fatalf("%d skills, warnings %v", len(res.Skills), res.Warnings)
	}
}
