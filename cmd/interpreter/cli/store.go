package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// StoreCmd groups the transcript store's commands.
type StoreCmd struct {
	GC    StoreGCCmd    `cmd:"" name:"gc" help:"Delete the blobs in the [store] url bucket that no thread references."`
	Serve StoreServeCmd `cmd:"" help:"Serve a transcript store over HTTP, for development ([store] url = \"http://...\"); a cluster uses a bucket (s3://, gs://, azblob://)."`
}

// StoreServeCmd serves blobs until SIGINT/SIGTERM.
type StoreServeCmd struct {
	Listen string `default:"127.0.0.1:8380" help:"Address to listen on." placeholder:"HOST:PORT"`
	Dir    string `help:"Directory of the blobs (default: $INTERPRETER_HOME/store-server)." placeholder:"DIR"`
}

// Run serves.
func (s *StoreServeCmd) Run(ctx context.Context, g *Globals, io Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	dir := s.Dir
	if dir == "" {
		dir = filepath.Join(cfg.Home(), "store-server")
	}
	st, err := activities.NewStore(dir)
	if err != nil {
		return exitf(1, "%v", err)
	}
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return exitf(1, "listening on %s: %v", s.Listen, err)
	}
	token := storeToken(cfg)
	srv := &http.Server{Handler: activities.BlobHandler(st, token), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(io.Out, "Store serving %s on http://%s (token: %v)\n", dir, ln.Addr(), token != "")
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return exitf(1, "%v", err)
	}
	return nil
}

// storeToken reads the blob server's token ([store] token_env).
func storeToken(cfg *config.Config) string {
	if cfg.Store.TokenEnv == "" {
		return ""
	}
	return os.Getenv(cfg.Store.TokenEnv)
}

// setRemote gives the store its remote tier from [store] url: object
// storage, checked with a write and a read so that bad credentials or a
// wrong bucket stop the worker as it starts; or a development blob
// server (http://, https://).
func setRemote(st *activities.Store, cfg *config.Config) error {
	u := cfg.Store.URL
	switch {
	case u == "":
		return nil
	case activities.IsBucketURL(u):
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		b, err := activities.OpenBucket(ctx, u)
		if err != nil {
			return exitf(1, "%v", err)
		}
		if err := b.Check(ctx); err != nil {
			_ = b.Close()
			return exitf(1, "%v", err)
		}
		st.SetRemote(b)
	case strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://"):
		st.SetRemote(&activities.HTTPRemote{BaseURL: u, Token: storeToken(cfg)})
	default:
		return exitf(2, "invalid store.url %q: want s3://, gs://, azblob://, file:// (or http:// for `interpreter store serve`)", u)
	}
	return nil
}
