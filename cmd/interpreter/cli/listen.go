package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
)

// devListen is where `interpreter dev` serves the app-server unless told
// otherwise (next to the UI's 8233).
const devListen = "ws://127.0.0.1:8234"

// listenToken reads the bearer token named by --auth-token-env.
func listenToken(envVar string) (string, error) {
	if envVar == "" {
		return "", nil
	}
	tok := os.Getenv(envVar)
	if tok == "" {
		return "", exitf(2, "--auth-token-env %s: the variable is empty or unset", envVar)
	}
	return tok, nil
}

func isStdio(listen string) bool { return listen == "" || listen == "stdio://" || listen == "stdio" }

// bindApp binds an app-server endpoint (nil for stdio); the errors name
// the flags.
func bindApp(listen, token string) (*appserver.Endpoint, error) {
	if isStdio(listen) {
		return nil, nil
	}
	ep, err := appserver.Listen(listen, appserver.ListenOptions{Token: token})
	if errors.Is(err, appserver.ErrNeedsToken) {
		return nil, exitf(2, "--listen %s: %v; pass --auth-token-env VAR (VAR holding the token clients send with --remote-auth-token-env)", listen, err)
	}
	if err != nil {
		return nil, exitf(1, "--listen %s: %v", listen, err)
	}
	return ep, nil
}

// serveApp serves srv on stdio (ep nil) or on the --listen endpoint until
// the client leaves (stdio) or the process is told to stop.
func serveApp(ctx context.Context, srv *appserver.Server, ep *appserver.Endpoint, stdio Stdio) error {
	if ep == nil {
		if err := srv.Serve(ctx, stdio.In, stdio.Out); err != nil {
			return exitf(1, "app-server: %v", err)
		}
		return nil
	}
	fmt.Fprintf(stdio.Err, "app-server listening on %s\n", ep.URL())
	if err := ep.Serve(ctx, srv); err != nil {
		return exitf(1, "app-server: %v", err)
	}
	return nil
}

// serveDevApp serves the app-server from `interpreter dev` over its own
// backend, in the background; it returns the URL ("" when not served).
func serveDevApp(ctx context.Context, g *Globals, cfg *config.Config, b *backend, listen, tokenEnv string, stdio Stdio) (string, error) {
	if listen == "none" {
		return "", nil
	}
	explicit := listen != ""
	if !explicit {
		listen = devListen
	}
	token, err := listenToken(tokenEnv)
	if err != nil {
		return "", err
	}
	ep, err := bindApp(listen, token)
	if err != nil && explicit {
		return "", err
	}
	if err != nil {
		// The default port taken (another dev server) is no reason to
		// stop this one.
		fmt.Fprintf(stdio.Err, "interpreter: warning: app-server not served: %v (pick another with --listen)\n", err)
		return "", nil
	}
	srv := appserver.New(appBackend(ctx, b, g, cfg), appOptions(cfg, stdio.Err))
	go func() {
		if err := ep.Serve(ctx, srv); err != nil {
			fmt.Fprintf(stdio.Err, "interpreter: app-server: %v\n", err)
		}
	}()
	return ep.URL(), nil
}

// bindListen binds --listen (nil for stdio) before anything else starts,
// so a bad address or a missing token fails at once.
func bindListen(listen, tokenEnv string) (*appserver.Endpoint, error) {
	token, err := listenToken(tokenEnv)
	if err != nil {
		return nil, err
	}
	return bindApp(listen, token)
}
