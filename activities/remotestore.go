package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Remote is a second tier of the [Store]: the blobs of workers that share
// no file system. Put must be durable when it returns: the reference goes
// into workflow history next, and any worker may read it.
type Remote interface {
	Put(ctx context.Context, ref string, data []byte) error
	// Get returns [ErrMissing] (wrapped) for a blob it does not hold.
	Get(ctx context.Context, ref string) ([]byte, error)
}

// RefOf is the reference of data in a store.
func RefOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// ValidRef tells a well-formed reference (32 lowercase hex digits).
func ValidRef(ref string) bool {
	if len(ref) != 32 {
		return false
	}
	_, err := hex.DecodeString(ref)
	return err == nil && strings.ToLower(ref) == ref
}

// HTTPRemote is a blob server reached over HTTP: PUT and GET of
// /blobs/<ref> (`interpreter store serve`).
type HTTPRemote struct {
	BaseURL string
	// Token, when set, is sent as a bearer token.
	Token  string
	Client *http.Client
}

// remoteTimeout bounds one request to the blob server.
const remoteTimeout = 30 * time.Second

func (r *HTTPRemote) do(ctx context.Context, method, ref string, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.BaseURL, "/")+"/blobs/"+ref, bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, err
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	c := r.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("blob store %s: %w", r.BaseURL, err)
	}
	resp.Body = readCloser{resp.Body, cancel}
	return resp, nil
}

type readCloser struct {
	io.ReadCloser
	cancel func()
}

func (r readCloser) Close() error { err := r.ReadCloser.Close(); r.cancel(); return err }

// Put uploads a blob.
func (r *HTTPRemote) Put(ctx context.Context, ref string, data []byte) error {
	resp, err := r.do(ctx, http.MethodPut, ref, data)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("blob store %s: PUT %s: %s %s", r.BaseURL, ref, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// Get downloads a blob and checks it against its reference.
func (r *HTTPRemote) Get(ctx context.Context, ref string) ([]byte, error) {
	resp, err := r.do(ctx, http.MethodGet, ref, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: %s (not on the blob store %s either)", ErrMissing, ref, r.BaseURL)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("blob store %s: GET %s: %s", r.BaseURL, ref, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("blob store %s: GET %s: %w", r.BaseURL, ref, err)
	}
	if RefOf(b) != ref {
		return nil, fmt.Errorf("%w: blob %s on the blob store %s", ErrCorrupt, ref, r.BaseURL)
	}
	return b, nil
}

// MaxBlobBytes bounds one blob a [BlobHandler] takes (an image, the
// largest entry, is far below it).
const MaxBlobBytes = 64 << 20

// BlobHandler serves a store's blobs over HTTP for workers on other
// machines: GET and PUT /blobs/<ref>; a PUT whose body does not hash to
// ref is refused, so a client can neither overwrite nor corrupt a blob.
func BlobHandler(s *Store, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if token != "" && req.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ref, ok := strings.CutPrefix(req.URL.Path, "/blobs/")
		if !ok || !ValidRef(ref) {
			http.NotFound(w, req)
			return
		}
		switch req.Method {
		case http.MethodGet:
			b, err := s.getLocal(ref)
			if errors.Is(err, ErrMissing) {
				http.NotFound(w, req)
				return
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(b)
		case http.MethodPut:
			b, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBlobBytes))
			if err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
			if RefOf(b) != ref {
				http.Error(w, "body does not match the reference", http.StatusBadRequest)
				return
			}
			if _, err := s.putLocal(b); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", "GET, PUT")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}
