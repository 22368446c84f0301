package skills

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits of a skill's frontmatter.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
	// maxFrontmatter bounds what is read before the closing `---`: the
	// body is never read.
	maxFrontmatter = 32 << 10
)

// Frontmatter is what a SKILL.md says about itself up front.
type Frontmatter struct {
	Name        string
	Description string
	// Runtime is the skill's `ankole-runtime` (runtime.go); "" when the
	// key is absent, which means any.
	Runtime string
}

// ParseFrontmatter reads the YAML frontmatter at the start of a SKILL.md
// (between a first line `---` and the next line `---`) and stops there.
// name and description are required strings; `ankole-runtime`, when
// present, is any, main or background_job; other keys are allowed and
// ignored. The description is folded onto one line.
func ParseFrontmatter(r io.Reader) (Frontmatter, error) {
	br := bufio.NewReader(io.LimitReader(r, maxFrontmatter+1))
	first, err := readLine(br)
	if err != nil && first == "" {
		return Frontmatter{}, errors.New("empty file: SKILL.md must start with a `---` line opening the frontmatter")
	}
	first = strings.TrimPrefix(first, "\ufeff")
	if strings.TrimRight(first, " \t") != "---" {
		return Frontmatter{}, errors.New("no frontmatter: SKILL.md must start with a `---` line, then name and description, then `---`")
	}
	var yml strings.Builder
	closed := false
	for {
		line, err := readLine(br)
		if err == nil || line != "" {
			if strings.TrimRight(line, " \t") == "---" {
				closed = true
				break
			}
			yml.WriteString(line)
			yml.WriteByte('\n')
		}
		if err != nil {
			break
		}
	}
	if !closed {
		if yml.Len() >= maxFrontmatter-8 {
			return Frontmatter{}, fmt.Errorf("frontmatter longer than %d bytes", maxFrontmatter)
		}
		return Frontmatter{}, errors.New("frontmatter is not closed by a `---` line")
	}
	var raw struct {
		Name        any `yaml:"name"`
		Description any `yaml:"description"`
		Runtime     any `yaml:"ankole-runtime"`
	}
	if err := yaml.Unmarshal([]byte(yml.String()), &raw); err != nil {
		return Frontmatter{}, fmt.Errorf("frontmatter is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	name, err := stringField("name", raw.Name)
	if err != nil {
		return Frontmatter{}, err
	}
	desc, err := stringField("description", raw.Description)
	if err != nil {
		return Frontmatter{}, err
	}
	var runtime string
	if raw.Runtime != nil {
		if runtime, err = parseRuntime(raw.Runtime); err != nil {
			return Frontmatter{}, err
		}
	}
	name = strings.TrimSpace(name)
	desc = oneLine(desc)
	switch {
	case name == "":
		return Frontmatter{}, errors.New("frontmatter field \"name\" is empty")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return Frontmatter{}, fmt.Errorf("frontmatter field \"name\" is longer than %d characters", MaxNameLen)
	case strings.ContainsAny(name, "\n\r\t"):
		return Frontmatter{}, errors.New("frontmatter field \"name\" must be one line")
	case desc == "":
		return Frontmatter{}, errors.New("frontmatter field \"description\" is empty")
	case utf8.RuneCountInString(desc) > MaxDescriptionLen:
		return Frontmatter{}, fmt.Errorf("frontmatter field \"description\" is longer than %d characters", MaxDescriptionLen)
	}
	return Frontmatter{Name: name, Description: desc, Runtime: runtime}, nil
}

func stringField(key string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", fmt.Errorf("frontmatter has no %q", key)
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("frontmatter field %q must be a string", key)
	}
}

// readLine reads one line without its end of line.
func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), err
}
