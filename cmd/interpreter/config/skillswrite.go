package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// SetSkillEnabled turns a skill on or off in config.toml, as Codex's
// skills/config/write does: the [[skills.config]] entries with the same
// selector (the skill's name, or its path) go, and a skill turned off
// gets an entry with enabled = false at the end. A skill turned on gets
// an entry with enabled = true only when another entry or [skills.bundled]
// could still turn it off (the last matching entry decides). The write is
// checked and atomic as [WriteEdits]'s; it returns whether the skill is
// now enabled.
func SetSkillEnabled(opts Options, name, path string, enabled bool) (bool, error) {
	if (name == "") == (path == "") {
		return false, errors.New("give exactly one of the skill's path or its name")
	}
	if path != "" {
		path = filepath.Clean(expandHome(path))
		if !filepath.IsAbs(path) {
			return false, &WriteError{Code: WriteInvalid, Err: fmt.Errorf("invalid skill path %q: must be absolute", path)}
		}
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	file := Path(opts.Home)
	text, err := ReadText(file)
	if err != nil {
		return false, err
	}
	next, err := editSkillEntries(text, name, path, enabled)
	if err != nil {
		return false, &WriteError{Code: WriteInvalid, Err: err}
	}
	if next == text {
		return enabled, nil
	}
	if _, err := checkText(opts, next); err != nil {
		//lint:ignore ST1005 the message is Codex's, word for word: clients show it
		return false, &WriteError{Code: WriteInvalid, Err: fmt.Errorf("Invalid configuration: %v", err)}
	}
	if err := writeAtomic(file, next); err != nil {
		return false, err
	}
	return enabled, nil
}

// editSkillEntries rewrites the [[skills.config]] entries of a text.
func editSkillEntries(text, name, path string, enabled bool) (string, error) {
	d, err := parseDoc(text)
	if err != nil {
		return "", err
	}
	var cuts []cut
	others := false
	for _, s := range d.sections {
		if !s.array {
			if err := d.checkSkillsNotInline(s); err != nil {
				return "", err
			}
			if samePath(s.path, []string{"skills", "bundled"}) {
				others = others || d.entryValue(s, "enabled") == false
			}
			continue
		}
		if !samePath(s.path, []string{"skills", "config"}) {
			continue
		}
		n, _ := d.entryValue(s, "name").(string)
		p, _ := d.entryValue(s, "path").(string)
		if p != "" {
			p = filepath.Clean(expandHome(p))
		}
		if (name != "" && n == name) || (path != "" && p == path) {
			cuts = append(cuts, cut{s.start, s.end, ""})
			continue
		}
		others = others || d.entryValue(s, "enabled") == false
	}
	text = d.apply(cuts)
	if enabled && !others {
		return text, nil
	}
	entry := "[[skills.config]]\n"
	if name != "" {
		entry += "name = " + tomlString(name) + "\n"
	} else {
		entry += "path = " + tomlString(path) + "\n"
	}
	entry += fmt.Sprintf("enabled = %t\n", enabled)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + entry, nil
}

// checkSkillsNotInline refuses skills.config written other than as
// [[skills.config]] tables: its entries are not edited by guesswork.
func (d *tomlDoc) checkSkillsNotInline(s *docSection) error {
	for _, e := range s.entries {
		if full := s.fullPath(e); hasPrefix(full, []string{"skills", "config"}) || samePath(full, []string{"skills"}) {
			return errors.New("skills.config is not written as [[skills.config]] tables; edit config.toml by hand")
		}
	}
	return nil
}

// entryValue is the value of a section's key (nil: none).
func (d *tomlDoc) entryValue(s *docSection, key string) any {
	for _, e := range s.entries {
		if samePath(e.key, []string{key}) {
			var doc map[string]any
			if toml.Unmarshal([]byte("v = "+d.text[e.valStart:e.valEnd]), &doc) == nil {
				return doc["v"]
			}
		}
	}
	return nil
}
