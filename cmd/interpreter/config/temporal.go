package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLSConfig is the TLS a client connecting to t uses: nil for plain gRPC,
// the configured certificates when tls, tls_cert or tls_ca is set, and the
// system roots when only an API key is (Temporal Cloud takes API keys over
// TLS only).
func (t Temporal) TLSConfig() (*tls.Config, error) {
	if !t.TLS && t.TLSCert == "" && t.TLSCA == "" {
		if t.APIKeyEnv != "" {
			return &tls.Config{}, nil
		}
		return nil, nil
	}
	tc := &tls.Config{ServerName: t.TLSServerName}
	if t.TLSCert != "" || t.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(t.TLSCert, t.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("loading temporal.tls_cert/tls_key: %v", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if t.TLSCA != "" {
		pem, err := os.ReadFile(t.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("reading temporal.tls_ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("temporal.tls_ca %s holds no PEM certificate", t.TLSCA)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}
