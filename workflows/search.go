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
)

// SearchAttributeTypes lists them for registration on a namespace.
func SearchAttributeTypes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		SAModel.GetName():        enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SACwd.GetName():          enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SAStatus.GetName():       enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SALastActivity.GetName(): enumspb.INDEXED_VALUE_TYPE_DATETIME,
	}
}
