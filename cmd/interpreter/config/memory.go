package config

import (
	"fmt"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// MemorySettings is the [memories] section:
//
//	[memories]
//	enabled = true               # off by default ([features] memories = true, Codex's switch, also turns it on)
//	idle_after = "10m"           # a thread idle this long has its memory extracted
//	consolidate_every = "1h"     # the Schedule of consolidations
//	max_unused_days = 30         # entries no thread stated for this long are dropped
type MemorySettings struct {
	Enabled          bool
	IdleAfter        time.Duration
	ConsolidateEvery time.Duration
	MaxUnusedDays    int
}

// MemorySettings reads the [memories] section.
func (cfg *Config) MemorySettings() (MemorySettings, error) {
	m := MemorySettings{IdleAfter: workflows.DefaultMemoryIdle, ConsolidateEvery: time.Hour, MaxUnusedDays: 30}
	sec := cfg.Memories
	m.Enabled = cfg.Features.Memories != nil && *cfg.Features.Memories
	if v, ok := sec["enabled"]; ok {
		b, ok := v.(bool)
		if !ok {
			return m, fmt.Errorf("invalid memories.enabled: want true or false")
		}
		m.Enabled = b
	}
	for key, dst := range map[string]*time.Duration{"idle_after": &m.IdleAfter, "consolidate_every": &m.ConsolidateEvery} {
		v, ok := sec[key]
		if !ok {
			continue
		}
		var d Duration
		s, isString := v.(string)
		if !isString {
			s = fmt.Sprint(v)
		}
		if err := d.UnmarshalText([]byte(s)); err != nil || d.Duration <= 0 {
			return m, fmt.Errorf("invalid memories.%s %v: want a positive duration such as \"10m\"", key, v)
		}
		*dst = d.Duration
	}
	if v, ok := sec["max_unused_days"]; ok {
		n, ok := v.(int64)
		if !ok || n <= 0 {
			return m, fmt.Errorf("invalid memories.max_unused_days %v: want a positive number of days", v)
		}
		m.MaxUnusedDays = int(n)
	}
	return m, nil
}
