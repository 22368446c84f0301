package activities

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotifyApprovalRecordsAndTells(t *testing.T) {
	a := newActs(t)
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("Content-Type") + " " + string(b)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "notified.json")
	n := ApprovalNotice{ThreadID: "th", TurnID: "th/turn-1", ItemID: "item_3", Kind: "command", Command: "make deploy",
		Reason: "untrusted", Answer: "interpreter approve th item_3 --decision approve|approve_for_session|deny|abort"}
	err := a.NotifyApproval(context.Background(), NotifyInput{Notice: n,
		NotifyCommand: []string{"sh", "-c", `printf '%s' "$1" > ` + out, "notify"}, WebhookURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{filepath.Join(a.Store.Dir(), "approvals", "th", "item_3.json"), out} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var back ApprovalNotice
		if err := json.Unmarshal(b, &back); err != nil || back != n {
			t.Errorf("%s: %+v %v", src, back, err)
		}
	}
	if h := <-got; !strings.HasPrefix(h, "application/json {") || !strings.Contains(h, "interpreter approve th item_3") {
		t.Errorf("webhook got %q", h)
	}
	// A failing notifier is an error (Temporal retries), the record stays.
	err = a.NotifyApproval(context.Background(), NotifyInput{Notice: n, NotifyCommand: []string{"false"}})
	if err == nil || !strings.Contains(err.Error(), "notify_command false") {
		t.Errorf("err = %v", err)
	}
}
