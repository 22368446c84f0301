package activities

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"gocloud.dev/blob"
	// The drivers [OpenBucket] takes, each with its provider's standard
	// credential chain (environment, shared config files, instance roles).
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// BucketRemote is a [Remote] on object storage (S3 and S3-compatible
// servers, GCS, Azure Blob, or a shared mount), through gocloud.dev/blob.
// A blob's key is <prefix><ref[:2]>/<ref>; blobs are never rewritten.
type BucketRemote struct {
	// Name is the bucket's URL without its query, for messages.
	Name   string
	bucket *blob.Bucket
}

// bucketTimeout bounds one request to the bucket (the SDKs retry within it).
const bucketTimeout = 60 * time.Second

// IsBucketURL tells a URL [OpenBucket] takes from one of a blob server
// (`interpreter store serve`, http:// or https://).
func IsBucketURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "s3", "gs", "azblob", "file":
		return true
	}
	return false
}

// OpenBucket opens s3://bucket/prefix?region=…&endpoint=…&use_path_style=true,
// gs://bucket/prefix, azblob://container/prefix or file:///dir. The path
// after the bucket is a key prefix (for file:// it is the directory).
func OpenBucket(ctx context.Context, raw string) (*BucketRemote, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store url %q: %w", raw, err)
	}
	if !IsBucketURL(raw) {
		return nil, fmt.Errorf("store url %q: want s3://, gs://, azblob:// or file://", raw)
	}
	prefix := ""
	if u.Scheme != "file" {
		if u.Host == "" {
			return nil, fmt.Errorf("store url %q: no bucket name", raw)
		}
		if p := strings.Trim(u.Path, "/"); p != "" {
			prefix = p + "/"
		}
		u.Path = ""
	}
	name := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/" + prefix}).String()
	if u.Scheme == "file" {
		name = "file://" + u.Path
	}
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", name, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	return &BucketRemote{Name: name, bucket: b}, nil
}

func blobKey(ref string) string { return ref[:2] + "/" + ref }

// Put uploads a blob; it returns once the provider has it durably (the
// writer's Close waits for the upload). A blob the bucket has already is
// written again with the same bytes, which costs one request where asking
// first would cost two for every new blob ([Store] remembers what it sent).
func (r *BucketRemote) Put(ctx context.Context, ref string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, bucketTimeout)
	defer cancel()
	sum := md5.Sum(data)
	opts := &blob.WriterOptions{ContentType: "application/octet-stream", ContentMD5: sum[:]}
	if err := r.bucket.WriteAll(ctx, blobKey(ref), data, opts); err != nil {
		return r.fail("writing blob "+ref, err)
	}
	return nil
}

// Get downloads a blob and checks it against its reference.
func (r *BucketRemote) Get(ctx context.Context, ref string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, bucketTimeout)
	defer cancel()
	b, err := r.bucket.ReadAll(ctx, blobKey(ref))
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%w: %s (not in %s either)", ErrMissing, ref, r.Name)
	}
	if err != nil {
		return nil, r.fail("reading blob "+ref, err)
	}
	if RefOf(b) != ref {
		return nil, fmt.Errorf("%w: blob %s in %s", ErrCorrupt, ref, r.Name)
	}
	return b, nil
}

// Has tells whether the bucket holds a blob.
func (r *BucketRemote) Has(ctx context.Context, ref string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, bucketTimeout)
	defer cancel()
	ok, err := r.bucket.Exists(ctx, blobKey(ref))
	if err != nil {
		return false, r.fail("looking for blob "+ref, err)
	}
	return ok, nil
}

// Delete removes a blob; one the bucket lacks is not an error.
func (r *BucketRemote) Delete(ctx context.Context, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, bucketTimeout)
	defer cancel()
	err := r.bucket.Delete(ctx, blobKey(ref))
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return r.fail("deleting blob "+ref, err)
	}
	return nil
}

// Refs lists the references of every blob in the bucket (under its
// prefix), with each one's modification time.
func (r *BucketRemote) Refs(ctx context.Context, each func(ref string, mod time.Time) error) error {
	it := r.bucket.List(nil)
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return r.fail("listing blobs", err)
		}
		i := strings.LastIndexByte(o.Key, '/')
		if ref := o.Key[i+1:]; !o.IsDir && ValidRef(ref) {
			if err := each(ref, o.ModTime); err != nil {
				return err
			}
		}
	}
}

// Check writes and reads back a small blob, so a worker with bad
// credentials or a wrong bucket says so as it starts, not in a turn.
func (r *BucketRemote) Check(ctx context.Context) error {
	probe := []byte(`{"entries":[]}`)
	ref := RefOf(probe)
	if err := r.Put(ctx, ref, probe); err != nil {
		return err
	}
	_, err := r.Get(ctx, ref)
	return err
}

// Close releases the bucket's connections.
func (r *BucketRemote) Close() error { return r.bucket.Close() }

// fail wraps a provider's error with the bucket's name and, for the
// common causes, what to look at.
func (r *BucketRemote) fail(what string, err error) error {
	if deniedAccess(err) {
		return fmt.Errorf("store %s: %s: access denied (check this worker's credentials for the bucket): %w", r.Name, what, err)
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("store %s: %s: no such bucket: %w", r.Name, what, err)
	}
	return fmt.Errorf("store %s: %s: %w", r.Name, what, err)
}

// deniedAccess tells a refusal of the credentials: the provider's
// permission error, any HTTP 401 or 403, or the S3 error codes for a key
// that is wrong, unknown or expired (which gocloud reports as unknown).
func deniedAccess(err error) bool {
	if gcerrors.Code(err) == gcerrors.PermissionDenied {
		return true
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) && (hs.HTTPStatusCode() == 401 || hs.HTTPStatusCode() == 403) {
		return true
	}
	msg := err.Error()
	for _, code := range []string{"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "AccessDenied"} {
		if strings.Contains(msg, code) {
			return true
		}
	}
	return false
}
