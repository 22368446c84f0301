package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/workflows"
)

// SearchAttributeSetup is what [EnsureSearchAttributes] found and did.
type SearchAttributeSetup struct {
	// Added are the attributes this call registered.
	Added []string
	// Missing are the attributes still missing: the client may not add
	// them (Denied) or adding failed (Err). An admin runs [AdminCommands].
	Missing []string
	// Denied: the server refused for lack of rights (or the namespace is
	// one, like Temporal Cloud's, whose attributes are set elsewhere).
	Denied bool
	Err    error
}

// EnsureSearchAttributes registers the thread search attributes that the
// namespace lacks, where this client has the rights. Threads run without
// them, so a refusal is reported, not fatal.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) SearchAttributeSetup {
	want := workflows.SearchAttributeTypes()
	missing, err := MissingSearchAttributes(ctx, c, namespace)
	if err != nil {
		return SearchAttributeSetup{Missing: sortedNames(want), Denied: isDenied(err), Err: err}
	}
	if len(missing) == 0 {
		return SearchAttributeSetup{}
	}
	add := map[string]enumspb.IndexedValueType{}
	for _, name := range missing {
		add[name] = want[name]
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: add})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return SearchAttributeSetup{Missing: missing, Denied: isDenied(err), Err: fmt.Errorf("adding search attributes: %w", err)}
	}
	return SearchAttributeSetup{Added: missing}
}

// MissingSearchAttributes lists the thread search attributes the
// namespace lacks, by name.
func MissingSearchAttributes(ctx context.Context, c client.Client, namespace string) ([]string, error) {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("listing search attributes: %w", err)
	}
	var missing []string
	for _, name := range sortedNames(workflows.SearchAttributeTypes()) {
		if _, ok := resp.GetCustomAttributes()[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing, nil
}

// AdminCommands are the Temporal CLI commands that register names on a
// namespace, one per attribute, for an admin to run.
func AdminCommands(address, namespace string, names []string) []string {
	types := workflows.SearchAttributeTypes()
	var out []string
	for _, name := range names {
		typ := "Keyword"
		if types[name] == enumspb.INDEXED_VALUE_TYPE_DATETIME {
			typ = "Datetime"
		}
		out = append(out, fmt.Sprintf("temporal operator search-attribute create --address %s --namespace %s --name %s --type %s",
			address, namespace, name, typ))
	}
	return out
}

// Describe says in a few lines what a setup found, for the person running
// the worker or `interpreter setup`; "" when all is in place already.
func (s SearchAttributeSetup) Describe(address, namespace string) string {
	switch {
	case len(s.Added) > 0:
		return fmt.Sprintf("registered search attributes %s on namespace %s\n", strings.Join(s.Added, ", "), namespace)
	case len(s.Missing) == 0:
		return ""
	}
	why := fmt.Sprintf("could not register them: %v", s.Err)
	if s.Denied {
		why = "this client may not register them (permission denied)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s lacks the search attributes %s; %s.\n", namespace, strings.Join(s.Missing, ", "), why)
	fmt.Fprintf(&b, "Threads run without them, but `threads list` then reads every open thread. An admin registers them with:\n")
	for _, cmd := range AdminCommands(address, namespace, s.Missing) {
		fmt.Fprintf(&b, "  %s\n", cmd)
	}
	return b.String()
}

func isDenied(err error) bool {
	var denied *serviceerror.PermissionDenied
	var unimpl *serviceerror.Unimplemented
	return errors.As(err, &denied) || errors.As(err, &unimpl)
}

func sortedNames(m map[string]enumspb.IndexedValueType) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
