package workflows

import (
	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// What front ends use of the packages below workflows (harness,
// activities), named here so that a front end imports workflows
// and frontend/threads only (see DESIGN.md). Each name is an alias or a
// call through: the packages below stay the one definition.

// Types that travel in a thread's configuration and a turn's result.
type (
	// ExternalTool is a tool offered to the model besides the harness's
	// own: a front end's dynamic tool ([ToolSourceDynamic]).
	ExternalTool = harness.ExternalTool
	// Usage is a turn's or a model call's token counts.
	Usage = harness.Usage
	// ProviderSpec is the model provider a thread calls.
	ProviderSpec = activities.ProviderSpec
	// SchemaProp is a named property of an object schema (see
	// [SchemaObject]).
	SchemaProp = harness.Prop
)

// ToolSourceDynamic is the source of a front end's dynamic tools: the
// turn hands their calls back to the front end.
const ToolSourceDynamic = harness.SourceDynamic

// ReasoningEfforts are the values of model_reasoning_effort, least first.
var ReasoningEfforts = harness.ReasoningEfforts

// ReasoningModel reports whether a model's name says it reasons.
func ReasoningModel(model string) bool { return harness.ReasoningModel(model) }

// AcceptsImages reports whether a model's name says it reads images.
func AcceptsImages(model string) bool { return harness.AcceptsImages(model) }

// JSON Schema builders for the tools a front end defines itself; the
// schemas keep their properties in the order given.

// SchemaObject is an object schema; required lists the required
// properties.
func SchemaObject(required []string, props ...SchemaProp) map[string]any {
	return harness.Object(required, props...)
}

// SchemaStrict is SchemaObject with additionalProperties false.
func SchemaStrict(required []string, props ...SchemaProp) map[string]any {
	return harness.Strict(required, props...)
}

// SchemaP is a property of an object schema.
func SchemaP(name string, schema map[string]any) SchemaProp { return harness.P(name, schema) }

// SchemaStr is a string schema.
func SchemaStr(desc string) map[string]any { return harness.Str(desc) }

// SchemaArr is an array schema of items.
func SchemaArr(desc string, items map[string]any) map[string]any { return harness.Arr(desc, items) }

// SchemaWith returns s with extra keywords (minItems, default, ...) set.
func SchemaWith(s map[string]any, kv ...any) map[string]any { return harness.With(s, kv...) }
