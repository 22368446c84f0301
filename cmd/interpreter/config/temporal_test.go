package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTemporalTLSConfig(t *testing.T) {
	if tc, err := (Temporal{}).TLSConfig(); tc != nil || err != nil {
		t.Errorf("no TLS: %v %v", tc, err)
	}
	if tc, err := (Temporal{APIKeyEnv: "K", TLSServerName: "x"}).TLSConfig(); err != nil || tc == nil || tc.ServerName != "" {
		t.Errorf("API key only: %+v %v", tc, err)
	}
	if tc, err := (Temporal{TLS: true, TLSServerName: "x"}).TLSConfig(); err != nil || tc == nil || tc.ServerName != "x" {
		t.Errorf("tls: %+v %v", tc, err)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    Temporal
		want string
	}{
		{Temporal{TLSCA: ca}, "holds no PEM certificate"},
		{Temporal{TLSCA: filepath.Join(dir, "missing")}, "reading temporal.tls_ca"},
		{Temporal{TLSCert: filepath.Join(dir, "c"), TLSKey: filepath.Join(dir, "k")}, "loading temporal.tls_cert/tls_key"},
	} {
		if _, err := c.t.TLSConfig(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: want %q, got %v", c.t, c.want, err)
		}
	}
}
