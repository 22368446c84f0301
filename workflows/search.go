package workflows

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// Search attributes of thread workflows, so the UI and `threads list` can
// filter threads.
var (
	SAModel        = temporal.NewSearchAttributeKeyKeyword("InterpreterModel")
	SACwd          = temporal.NewSearchAttributeKeyKeyword("InterpreterCwd")
	SAStatus       = temporal.NewSearchAttributeKeyKeyword("InterpreterStatus")
	SALastActivity = temporal.NewSearchAttributeKeyTime("InterpreterLastActivity")
	// SASummary is what a thread or turn is, as the Web UI's list shows it:
	// "thread: <first prompt>" or "turn <n>: <prompt>" (the workflows'
	// StaticSummary, which the list cannot show).
	SASummary = temporal.NewSearchAttributeKeyKeyword("InterpreterSummary")
)

// UIListColumns are the Web UI list's columns `interpreter dev` starts a
// browser with: the prompt and the last turn's status next to the
// UI's own.
var UIListColumns = []string{"Status", "Workflow ID", "Type", SASummary.GetName(), SAStatus.GetName(), "Start", "End"}

// SearchAttributeTypes lists them for registration on a namespace.
func SearchAttributeTypes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		SAModel.GetName():        enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SACwd.GetName():          enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SAStatus.GetName():       enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SALastActivity.GetName(): enumspb.INDEXED_VALUE_TYPE_DATETIME,
		SASummary.GetName():      enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
}
