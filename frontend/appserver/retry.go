package appserver

import (
	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// retryNotice is Codex's `error` notification with willRetry set, sent
// for each retry of a model call while it happens: the message says which
// attempt comes next and when, additionalDetails what failed, and
// codexErrorInfo what kind of failure it was.
func (t *translator) retryNotice(e workflows.Event) notification {
	details := e.Error
	terr := &TurnError{Message: workflows.RetryText(e), CodexErrorInfo: retryErrorInfo(e.Retry), AdditionalDetails: &details}
	return notice(protocol.ErrorNotification{ThreadID: t.threadID, TurnID: t.turnID, Error: terr, WillRetry: true})
}

// retryErrorInfo is the CodexErrorInfo of a retry: a request that could
// not be made or was refused for now, or an answer that broke off.
func retryErrorInfo(r *workflows.ModelRetry) protocol.CodexErrorInfo {
	if r == nil {
		return protocol.CodexErrorInfo{Kind: protocol.ErrorOther}
	}
	var status *int // null when the provider gave none
	if r.HTTPStatus != 0 {
		s := r.HTTPStatus
		status = &s
	}
	if r.Kind == workflows.RetryStream {
		return protocol.CodexErrorInfo{Kind: protocol.ErrorResponseStreamDisconnected, HTTPStatusCode: status}
	}
	return protocol.CodexErrorInfo{Kind: protocol.ErrorHTTPConnectionFailed, HTTPStatusCode: status}
}
