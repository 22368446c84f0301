package threads

import "sort"

// AsTree orders a list as a tree: each thread followed by its sub-agents
// (depth first; the top level in the list's order, the sub-agents of a
// thread oldest first, as they were spawned), Depth set. A sub-agent whose
// parent is not in the list stays where it was, as a root.
func AsTree(list []Summary) []Summary {
	in := map[string]bool{}
	for _, s := range list {
		in[s.ThreadID] = true
	}
	children := map[string][]Summary{}
	var roots []Summary
	for _, s := range list {
		if s.ParentThreadID != "" && in[s.ParentThreadID] && s.ParentThreadID != s.ThreadID {
			children[s.ParentThreadID] = append(children[s.ParentThreadID], s)
			continue
		}
		roots = append(roots, s)
	}
	for _, kids := range children {
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].StartTime.Before(kids[j].StartTime) })
	}
	out := make([]Summary, 0, len(list))
	seen := map[string]bool{}
	var walk func(s Summary, depth int)
	walk = func(s Summary, depth int) {
		if seen[s.ThreadID] {
			return
		}
		seen[s.ThreadID] = true
		s.Depth = depth
		out = append(out, s)
		for _, c := range children[s.ThreadID] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return out
}
