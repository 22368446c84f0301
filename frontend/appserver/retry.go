package appserver

import "github.com/interpreter-dev/interpreter/workflows"

// retryNotice is Codex's `error` notification with willRetry set, sent
// for each retry of a model call while it happens: the message says which
// attempt comes next and when, additionalDetails what failed, and
// codexErrorInfo what kind of failure it was.
func (t *translator) retryNotice(e workflows.Event) notification {
	details := e.Error
	terr := &TurnError{Message: workflows.RetryText(e), CodexErrorInfo: retryErrorInfo(e.Retry), AdditionalDetails: &details}
	return t.note("error", map[string]any{"error": terr, "willRetry": true})
}

// retryErrorInfo is the CodexErrorInfo of a retry: a request that could
// not be made or was refused for now, or an answer that broke off.
func retryErrorInfo(r *workflows.ModelRetry) any {
	if r == nil {
		return "other"
	}
	var status any // null when the provider gave none
	if r.HTTPStatus != 0 {
		status = r.HTTPStatus
	}
	if r.Kind == workflows.RetryStream {
		return map[string]any{"responseStreamDisconnected": map[string]any{"httpStatusCode": status}}
	}
	return map[string]any{"httpConnectionFailed": map[string]any{"httpStatusCode": status}}
}
