package harness

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Image is a picture in the conversation: a user's attachment or what a
// tool showed the model. Its bytes live in the store (Ref), never in
// workflow history; a remote picture is a URL. For a request the model
// call fills Data in a copy of the entry.
type Image struct {
	Ref  string `json:"ref,omitempty"`
	URL  string `json:"url,omitempty"`
	MIME string `json:"mime,omitempty"`
	// Label names the picture for the model (the path the user gave).
	Label string `json:"label,omitempty"`
	// Data is the bytes, set only while a request is rendered.
	Data []byte `json:"-"`
}

// Source is the picture as a URL a provider takes: its data as a data:
// URL, or the remote URL.
func (im Image) Source() string {
	if len(im.Data) > 0 {
		return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
	}
	return im.URL
}

// imageOpen and imageClose frame a picture the user attached, as Codex
// frames it, so the model can tell pictures apart and refer to them.
func imageOpen(n int, im Image) string {
	if im.Label == "" {
		return fmt.Sprintf("<image name=[Image #%d]>", n)
	}
	return fmt.Sprintf("<image name=[Image #%d] path=%q>", n, im.Label)
}

const imageClose = "</image>"

// AcceptsImages guesses from its name whether a model takes pictures. Only
// families known to read text alone are refused; the others are given
// the benefit of the doubt, as Codex gives it.
func AcceptsImages(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, vision := range []string{"vl", "vision", "pixtral", "llava"} {
		if strings.Contains(m, vision) {
			return true
		}
	}
	for _, p := range []string{"gpt-3.5", "o1-mini", "o3-mini", "gpt-oss", "deepseek", "qwen3-coder", "qwen2.5-coder", "codestral", "kimi-k2", "glm-4.5", "text-"} {
		if strings.HasPrefix(m, p) {
			return false
		}
	}
	return true
}

// CheckImages reports pictures sent to a model that reads text alone.
func CheckImages(model string, n int, override *bool) error {
	ok := AcceptsImages(model)
	if override != nil {
		ok = *override
	}
	if n == 0 || ok {
		return nil
	}
	return fmt.Errorf("model %q reads text only, so the %d image(s) cannot be sent to it; pick a model that takes images, or set model_supports_images = true if this one does", model, n)
}
