package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
)

// Secrets gives a worker's values for what a [Server] only names.
type Secrets struct {
	// Env holds env values by server name, then variable name: the
	// worker's own [mcp_servers.<name>.env] tables.
	Env map[string]map[string]string
	// Getenv reads the worker's environment: bearer tokens, and env
	// variables the worker's config has no value for. nil: os.Getenv.
	Getenv func(string) string
}

func (s Secrets) getenv(name string) string {
	if s.Getenv != nil {
		return s.Getenv(name)
	}
	return os.Getenv(name)
}

// resolved is a server with its secret values, as one worker connects it.
type resolved struct {
	Server
	env     map[string]string
	token   string
	headers map[string]string // values of EnvHTTPHeaders
	key     string
}

// resolve looks up a server's secret values; a missing one is an error
// naming the server and the variable (never a value).
func (p *Pool) resolve(scope string, s Server) (resolved, error) {
	r := resolved{Server: s, env: map[string]string{}}
	for _, name := range s.Env {
		v, ok := p.Secrets.Env[s.Name][name]
		if !ok {
			v = p.Secrets.getenv(name)
		}
		if v == "" && !ok {
			return r, fmt.Errorf("mcp server %q: env variable %s has no value on this host (set it in [mcp_servers.%s.env] of the worker's config.toml, or in its environment)", s.Name, name, s.Name)
		}
		r.env[name] = v
	}
	if s.BearerTokenEnvVar != "" {
		r.token = p.Secrets.getenv(s.BearerTokenEnvVar)
		if r.token == "" {
			return r, fmt.Errorf("mcp server %q: bearer_token_env_var %s is not set on this host", s.Name, s.BearerTokenEnvVar)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(s.EnvHTTPHeaders)) {
		v := p.Secrets.getenv(s.EnvHTTPHeaders[h])
		if v == "" {
			return r, fmt.Errorf("mcp server %q: env_http_headers.%s: variable %s is not set on this host", s.Name, h, s.EnvHTTPHeaders[h])
		}
		if r.headers == nil {
			r.headers = map[string]string{}
		}
		r.headers[h] = v
	}
	b, _ := json.Marshal(struct {
		Scope   string
		S       Server
		Env     map[string]string
		Token   string
		Headers map[string]string
	}{scope, s, r.env, r.token, r.headers})
	sum := sha256.Sum256(b)
	r.key = hex.EncodeToString(sum[:])
	return r, nil
}

// redactor redacts this server's secret values.
func (r resolved) redactor() *Redactor {
	var vals []string
	for _, v := range r.env {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	var tokens []string
	if r.token != "" {
		tokens = append(tokens, r.token)
	}
	for _, h := range slices.Sorted(maps.Keys(r.headers)) {
		tokens = append(tokens, r.headers[h])
	}
	return NewRedactor(tokens, vals)
}
