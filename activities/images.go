package activities

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/harness"
)

// ErrTypeImage is a picture that cannot be sent (missing, unreadable,
// too big, not an image): the turn fails before any model call.
const ErrTypeImage = "ImageError"

// Bounds on one picture: what the providers take (Anthropic's Messages
// API 5 MB an image, OpenAI's 20 MB).
const (
	MaxImageBytes         = 20 << 20
	MaxImageBytesMessages = 5 << 20
)

// ImageSource is a picture a user attached: a file on the workspace host
// or a URL (http(s), or a data: URL).
type ImageSource struct {
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
}

// ImagesInput asks for pictures to be read into the store.
type ImagesInput struct {
	ThreadID string        `json:"thread_id"`
	Cwd      string        `json:"cwd"`
	Images   []ImageSource `json:"images"`
	// MaxBytes bounds each picture (0: [MaxImageBytes]).
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// ImagesOutput are the pictures, by reference.
type ImagesOutput struct {
	Images []harness.Image `json:"images"`
}

// LoadImages reads attached pictures on the workspace host into the
// store, so that only references travel through workflow history. A
// picture that cannot be sent is a non-retryable error that says why.
func (a *Activities) LoadImages(_ context.Context, in ImagesInput) (*ImagesOutput, error) {
	out := &ImagesOutput{}
	for _, src := range in.Images {
		im, err := a.loadImage(in.Cwd, src, in.MaxBytes)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeImage, nil)
		}
		out.Images = append(out.Images, im)
	}
	return out, nil
}

func (a *Activities) loadImage(cwd string, src ImageSource, limit int64) (harness.Image, error) {
	if src.URL != "" {
		return harness.Image{URL: src.URL}, nil
	}
	data, mime, err := ReadImage(cwd, src.Path, limit)
	if err != nil {
		return harness.Image{}, err
	}
	ref, err := a.Store.Put(data)
	if err != nil {
		return harness.Image{}, err
	}
	return harness.Image{Ref: ref, MIME: mime, Label: src.Path}, nil
}

// ReadImage reads a picture file (a relative path is taken from cwd),
// checking its size and that it is a PNG, JPEG, GIF or WebP image.
func ReadImage(cwd, path string, limit int64) ([]byte, string, error) {
	if limit <= 0 {
		limit = MaxImageBytes
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", fmt.Errorf("image %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("image %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("image %s: not a regular file", path)
	}
	if st.Size() > limit {
		return nil, "", fmt.Errorf("image %s is %s; the provider takes images of at most %s", path, sizeText(st.Size()), sizeText(limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("image %s: %w", path, err)
	}
	mime := http.DetectContentType(data)
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return nil, "", fmt.Errorf("image %s is not a PNG, JPEG, GIF or WebP image (it looks like %s)", path, strings.TrimSuffix(mime, "; charset=utf-8"))
	}
	return data, mime, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)>>10)
}

// withImageData returns conv with the pictures' bytes filled in from the
// store, in copies, so the transcript keeps references only.
func (a *Activities) withImageData(conv []harness.Entry) ([]harness.Entry, error) {
	var out []harness.Entry
	for i, e := range conv {
		if len(e.Images) == 0 {
			continue
		}
		if out == nil {
			out = append([]harness.Entry{}, conv...)
		}
		imgs := append([]harness.Image{}, e.Images...)
		for j, im := range imgs {
			if im.Ref == "" {
				continue
			}
			data, err := a.Store.Get(im.Ref)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", im.Label, err)
			}
			imgs[j].Data = data
		}
		out[i].Images = imgs
	}
	if out == nil {
		return conv, nil
	}
	return out, nil
}
