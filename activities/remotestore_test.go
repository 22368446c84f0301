package activities

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http/httptest"
	"testing"
)

func blobServer(t testing.TB) (*HTTPRemote, func()) {
	st, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(BlobHandler(st, "tok"))
	return &HTTPRemote{BaseURL: srv.URL, Token: "tok"}, srv.Close
}

// The blob server takes a blob only under its own hash, and a store with
// it as second tier finds there what another store wrote.
func TestBlobServerKeepsBlobsUnderTheirHashOnly(t *testing.T) {
	r, stop := blobServer(t)
	defer stop()
	ctx := context.Background()
	if err := r.Put(ctx, RefOf([]byte("right")), []byte("wrong")); err == nil {
		t.Fatal("a blob was taken under another blob's reference")
	}
	if _, err := r.Get(ctx, RefOf([]byte("never put"))); !errors.Is(err, ErrMissing) {
		t.Fatalf("get of a missing blob: %v", err)
	}
	a, _ := NewStore(t.TempDir())
	b, _ := NewStore(t.TempDir())
	a.SetRemote(r)
	b.SetRemote(r)
	ref, err := a.Put([]byte("written on a"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ref)
	if err != nil || string(got) != "written on a" {
		t.Fatalf("b read %q, %v", got, err)
	}
}

// BenchmarkRemoteStore measures one write-through and one fetch of a
// 2 KiB blob (a typical transcript entry) over loopback HTTP.
func BenchmarkRemoteStore(b *testing.B) {
	r, stop := blobServer(b)
	defer stop()
	ctx := context.Background()
	blob := make([]byte, 2048)
	b.Run("put", func(b *testing.B) {
		for b.Loop() {
			_, _ = rand.Read(blob[:16])
			if err := r.Put(ctx, RefOf(blob), blob); err != nil {
				b.Fatal(err)
			}
		}
	})
	ref := RefOf(blob)
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Get(ctx, ref); err != nil {
				b.Fatal(err)
			}
		}
	})
}
