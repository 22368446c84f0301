package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// ImageSource is a picture attached to a prompt (the payload type front
// ends fill).
type ImageSource = activities.ImageSource

// Bounds on a turn's pictures as they travel in the turn's input: their
// bytes go to the store, but URLs (data: URLs included) travel as they
// are.
const (
	MaxImagesPerTurn = 16
	MaxImageURLChars = 1 << 20
)

// checkImages refuses pictures a turn cannot send, before it is accepted.
func checkImages(req StartTurnRequest, cfg ThreadConfig) error {
	if len(req.Images) == 0 {
		return nil
	}
	if len(req.Images) > MaxImagesPerTurn {
		return fmt.Errorf("%d images attached; a turn takes at most %d", len(req.Images), MaxImagesPerTurn)
	}
	chars := 0
	for _, im := range req.Images {
		switch {
		case im.Path == "" && im.URL == "":
			return errors.New("an attached image has neither a path nor a URL")
		case im.URL != "" && !strings.HasPrefix(im.URL, "http://") && !strings.HasPrefix(im.URL, "https://") && !strings.HasPrefix(im.URL, "data:image/"):
			return fmt.Errorf("image URL %.60q is not an http(s) URL or a data:image/ URL", im.URL)
		}
		chars += len(im.URL)
	}
	if chars > MaxImageURLChars {
		return fmt.Errorf("the attached image URLs hold %d characters; at most %d are taken (attach large images as files)", chars, MaxImageURLChars)
	}
	model := cfg.Model
	if req.Model != "" {
		model = req.Model
	}
	return harness.CheckImages(model, len(req.Images), cfg.ImagesSupported)
}

// loadImages reads the prompt's pictures into the store on the workspace
// host and attaches them, by reference, to the prompt's entry. A picture
// that cannot be sent fails the turn before any model call.
func (t *turn) loadImages(ctx workflow.Context) error {
	cfg := t.in.Config
	if len(t.in.Images) == 0 {
		return nil
	}
	if err := harness.CheckImages(cfg.Model, len(t.in.Images), cfg.ImagesSupported); err != nil {
		return err
	}
	imgs, err := t.readImages(ctx, t.in.Images)
	if err != nil {
		return err
	}
	n := len(t.st.Pending)
	if n > 0 && t.st.Pending[n-1].Kind == harness.KindUser {
		t.st.Pending[n-1].Images = imgs
	}
	return nil
}

// viewImage shows the model a picture of the workspace (view_image): read
// on the workspace host into the store, it travels with the tool's output
// by reference. A picture that cannot be read is an error the model reads.
func (t *turn) viewImage(ctx workflow.Context, c activities.DecodedCall, reply func(string) harness.Entry) harness.Entry {
	cfg := t.in.Config
	if err := harness.CheckImages(cfg.Model, 1, cfg.ImagesSupported); err != nil {
		return reply("error: " + err.Error())
	}
	path := t.workdir(c.Inv.Path)
	imgs, err := t.readImages(ctx, []activities.ImageSource{{Path: path}})
	if err != nil {
		return reply("error: " + err.Error())
	}
	e := reply("")
	e.Images = imgs
	return e
}

// readImages reads pictures into the store on the workspace host.
func (t *turn) readImages(ctx workflow.Context, srcs []activities.ImageSource) ([]harness.Image, error) {
	cfg := t.in.Config
	limit := int64(activities.MaxImageBytes)
	if cfg.Provider.WireAPI == activities.WireMessages {
		limit = activities.MaxImageBytesMessages
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             fmt.Sprintf("images · %d", len(srcs)),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}
	var out activities.ImagesOutput
	in := activities.ImagesInput{ThreadID: t.in.ThreadID, Cwd: cfg.Cwd, Images: srcs, MaxBytes: limit}
	if err := t.onHost(ctx, opts, acts.LoadImages, in, &out); err != nil {
		return nil, errors.New(rootMessage(err))
	}
	return out.Images, nil
}
