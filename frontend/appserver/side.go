package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// thread/inject_items: Responses API items added to a thread's
// model-visible history. The Codex TUI's side conversations (/side) fork
// the thread (ephemeral), inject a developer message that says what a
// side conversation is, and start a turn on the fork.

// ItemInjector is a [Backend] that injects entries into an idle thread's
// history (the next turn sends them before its prompt).
type ItemInjector interface {
	InjectItems(ctx context.Context, threadID string, entries []workflows.Entry) error
}

type injectParams struct {
	ThreadID string            `json:"threadId"`
	Items    []json.RawMessage `json:"items"`
}

func (c *conn) threadInjectItems(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p injectParams
	if err := decodeParams(raw, &p, "threadId", "items"); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	entries, err := injectedEntries(p.Items)
	if err == nil && len(entries) > 0 {
		inj, ok := c.s.backend.(ItemInjector)
		if !ok {
			err = invalidRequest("thread/inject_items is not supported by this server")
		} else if ierr := inj.InjectItems(ctx, p.ThreadID, entries); ierr != nil {
			err = manageError(p.ThreadID, ierr)
		}
	}
	if err != nil {
		c.dropFailedSide(info)
		return nil, err
	}
	return &result{value: protocol.Empty{}}, nil
}

// dropFailedSide deletes an ephemeral fork of this connection that has
// had no turn when injecting into it failed: the side conversation it
// was made for will not happen, and it must not stay behind in the
// resume picker.
func (c *conn) dropFailedSide(info ThreadInfo) {
	ts := c.subscribed(info.ID)
	if ts == nil || info.ForkedFrom == "" || info.View == nil || len(info.View.Turns) > 0 || info.View.RunningTurn != "" {
		return
	}
	c.mu.Lock()
	ephemeral := ts.ephemeral
	ts.ephemeral = false
	c.mu.Unlock()
	d, ok := c.s.backend.(ThreadDeleter)
	if !ephemeral || !ok {
		return
	}
	c.unsubscribe(info.ID)
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	if _, err := d.DeleteThread(ctx, info.ID); err != nil && !errors.Is(err, threads.ErrThreadNotFound) {
		c.logf("deleting the side conversation %s after a failed thread/inject_items: %v", info.ID, err)
	}
}

// responseItem is the part of a Responses API item this server takes: a
// message with text content.
type responseItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// injectedEntries converts the items; anything but a text message is the
// client's error, named by its index.
func injectedEntries(items []json.RawMessage) ([]workflows.Entry, error) {
	var out []workflows.Entry
	for i, raw := range items {
		e, err := injectedEntry(raw)
		if err != nil {
			return nil, invalidRequest("items[%d] is not a valid response item: %v", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func injectedEntry(raw json.RawMessage) (workflows.Entry, error) {
	var it responseItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return workflows.Entry{}, fmt.Errorf("expected an object")
	}
	if it.Type != "message" && !(it.Type == "" && it.Role != "") {
		return workflows.Entry{}, fmt.Errorf("type %q cannot be injected here; only messages can", it.Type)
	}
	text, err := messageText(it.Content)
	if err != nil {
		return workflows.Entry{}, err
	}
	switch it.Role {
	case "user":
		return workflows.Entry{Kind: "user", Text: text}, nil
	case "assistant":
		return workflows.Entry{Kind: "assistant", Text: text}, nil
	case "developer", "system":
		// Instructions, not a person's words: marked as context.
		return workflows.Entry{Kind: "user", Text: text, Context: true}, nil
	}
	return workflows.Entry{}, fmt.Errorf("unknown role %q (user, assistant, developer or system)", it.Role)
}

// messageText joins a message's text parts (content is a string or a
// list of parts).
func messageText(content json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(content, &parts); err != nil {
		return "", fmt.Errorf("content must be a string or a list of parts")
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Text)
		default:
			return "", fmt.Errorf("content part %q cannot be injected here; only text can", p.Type)
		}
	}
	return strings.Join(texts, "\n"), nil
}
