package codexclients

import (
	"encoding/json"
	"strings"
	"testing"
)

// The transcript checker catches what a server or client could get wrong:
// a request whose params break the schema, a result of the wrong shape,
// a method neither 0.171 bundle has; and it passes a well-formed session.
func TestTUITranscriptChecker(t *testing.T) {
	s := loadSchema171(t)
	msg := func(conn int64, dir, raw string) transcriptMessage {
		return transcriptMessage{Conn: conn, Dir: dir, Msg: json.RawMessage(raw)}
	}
	good := []transcriptMessage{
		msg(1, "in", `{"id":1,"method":"thread/delete","params":{"threadId":"t1"}}`),
		msg(1, "out", `{"id":1,"result":{}}`),
		msg(1, "in", `{"id":"r","method":"review/start","params":{"threadId":"t1","target":{"type":"uncommittedChanges"},"delivery":"inline"}}`),
		msg(1, "out", `{"id":"r","error":{"code":-32600,"message":"no"}}`),
		msg(1, "in", `{"id":2,"method":"thread/backgroundTerminals/clean","params":{"threadId":"t1"}}`),
		msg(1, "out", `{"id":2,"result":{}}`),
	}
	sum, problems := validateTUITranscript(s, good)
	if len(problems) != 0 {
		t.Fatalf("a good session has problems: %v", problems)
	}
	if sum.Results["thread/delete"] != 1 || sum.Errors["review/start"] != 1 || sum.Results["thread/backgroundTerminals/clean"] != 1 {
		t.Fatalf("summary %+v", sum)
	}
	for name, bad := range map[string][]transcriptMessage{
		"bad params": {msg(1, "in", `{"id":1,"method":"review/start","params":{"threadId":"t1","target":{"type":"everything"}}}`)},
		"bad result": {
			msg(1, "in", `{"id":1,"method":"hooks/list","params":{"threadId":"t1"}}`),
			msg(1, "out", `{"id":1,"result":{"data":[{"cwd":"/w"}]}}`),
		},
		"unknown method":   {msg(1, "in", `{"id":1,"method":"thread/nothing","params":{}}`)},
		"bad notification": {msg(1, "out", `{"method":"turn/completed","params":{"threadId":"t1"}}`)},
	} {
		if _, problems := validateTUITranscript(s, bad); len(problems) == 0 || !strings.Contains(problems[0], "does not validate") {
			t.Errorf("%s: problems %v", name, problems)
		}
	}
}
