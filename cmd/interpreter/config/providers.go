package config

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// Built-in provider ids.
const (
	ProviderOpenAI    = "openai"
	ProviderOSS       = "oss"
	ProviderAnthropic = "anthropic"
	ProviderDemo      = "demo"
)

// DefaultOSSBaseURL is the oss provider's base URL unless CODEX_OSS_BASE_URL
// is set.
const DefaultOSSBaseURL = "http://localhost:11434/v1"

// builtinProviders returns the providers that always exist, as TOML tables
// so that a user's [model_providers.<id>] entry is merged over them field
// by field.
func builtinProviders() map[string]any {
	oss := os.Getenv("CODEX_OSS_BASE_URL")
	if oss == "" {
		oss = DefaultOSSBaseURL
	}
	return map[string]any{
		ProviderOpenAI: map[string]any{
			"name":     "OpenAI",
			"base_url": "https://api.openai.com/v1",
			"wire_api": WireResponses,
			"env_key":  "OPENAI_API_KEY",
		},
		ProviderOSS: map[string]any{
			"name":     "Open Source (Ollama)",
			"base_url": oss,
			"wire_api": WireChat,
		},
		ProviderAnthropic: map[string]any{
			"name":     "Anthropic",
			"base_url": "https://api.anthropic.com",
			"wire_api": WireMessages,
			"env_key":  "ANTHROPIC_API_KEY",
		},
		// The worker fills in the demo server's base URL at run time.
		ProviderDemo: map[string]any{
			"name":     "Demo (scripted, built in)",
			"wire_api": WireResponses,
		},
	}
}

// normalizeProviders fills per-provider defaults: wire_api "responses" and
// the id as display name.
func (c *Config) normalizeProviders() {
	for id, p := range c.ModelProviders {
		if p.WireAPI == "" {
			p.WireAPI = WireResponses
		}
		if p.Name == "" {
			p.Name = id
		}
		c.ModelProviders[id] = p
	}
}

// Provider returns the provider with the given id. An unknown id is an
// error listing the known ones.
func (c *Config) Provider(id string) (Provider, error) {
	if p, ok := c.ModelProviders[id]; ok {
		return p, nil
	}
	return Provider{}, fmt.Errorf("unknown model provider %q (known: %s)", id, strings.Join(c.ProviderIDs(), ", "))
}

// ProviderIDs returns the ids of all configured providers, sorted.
func (c *Config) ProviderIDs() []string { return sortedKeys(c.ModelProviders) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
