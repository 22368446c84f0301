package applypatch

import (
	"fmt"
	"strings"
)

const (
	diffContext = 3    // unchanged lines shown around each change
	maxEditCost = 1000 // beyond this many edits, the changed middle is shown as one block
)

// edit is one line of an edit script: op ' ', '-' or '+'; text keeps its
// "\n" unless it is a final line without one.
type edit struct {
	op   byte
	text string
}

// splitKeep splits s into lines that keep their "\n".
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// unifiedDiff renders the change from a to b as a unified diff with the
// given header names ("/dev/null" for a missing side). It returns "" when
// a and b are equal.
func unifiedDiff(oldName, newName, a, b string) string {
	if a == b {
		return ""
	}
	edits := diffLines(splitKeep(a), splitKeep(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)

	// Before each edit: how many old and new lines precede it.
	oldAt := make([]int, len(edits)+1)
	newAt := make([]int, len(edits)+1)
	for i, e := range edits {
		oldAt[i+1], newAt[i+1] = oldAt[i], newAt[i]
		if e.op != '+' {
			oldAt[i+1]++
		}
		if e.op != '-' {
			newAt[i+1]++
		}
	}
	for i := 0; i < len(edits); {
		if edits[i].op == ' ' {
			i++
			continue
		}
		// Grow the hunk while the next change is within 2*context lines.
		start := max(0, i-diffContext)
		end := i
		for j := i; j < len(edits); j++ {
			if edits[j].op != ' ' {
				end = j + 1
			} else if j-end >= 2*diffContext {
				break
			}
		}
		end = min(len(edits), end+diffContext)
		oldN, newN := oldAt[end]-oldAt[start], newAt[end]-newAt[start]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(oldAt[start], oldN), hunkRange(newAt[start], newN))
		for _, e := range edits[start:end] {
			out.WriteByte(e.op)
			out.WriteString(e.text)
			if !strings.HasSuffix(e.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(before, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", before)
	}
	if n == 1 {
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}

// diffLines returns an edit script turning a into b: common prefix and
// suffix, and a Myers shortest edit script for the middle.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for _, l := range a[:pre] {
		out = append(out, edit{' ', l})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, edit{' ', l})
	}
	return out
}

// myers computes a shortest edit script (Myers 1986), keeping one
// snapshot of the frontier per edit cost for backtracking. If the cost
// exceeds maxEditCost it gives up and replaces a with b wholesale.
func myers(a, b []string) []edit {
	n, m := len(a), len(b)
	wholesale := func() []edit {
		out := make([]edit, 0, n+m)
		for _, l := range a {
			out = append(out, edit{'-', l})
		}
		for _, l := range b {
			out = append(out, edit{'+', l})
		}
		return out
	}
	if n == 0 || m == 0 {
		return wholesale()
	}
	limit := min(n+m, maxEditCost)
	off := limit + 1
	v := make([]int, 2*off+1) // v[off+k]: furthest x on diagonal k
	var trace [][]int
	for d := 0; d <= limit; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace)
			}
		}
	}
	return wholesale()
}

func backtrack(a, b []string, trace [][]int) []edit {
	x, y := len(a), len(b)
	var rev []edit
	for d := len(trace) - 1; d > 0; d-- {
		snap := trace[d] // frontier after d-1 edits, indexed by k+d
		get := func(k int) int { return snap[k+d] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		}
		prevX := get(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, edit{' ', a[x-1]})
			x--
			y--
		}
		if x == prevX {
			rev = append(rev, edit{'+', b[y-1]})
		} else {
			rev = append(rev, edit{'-', a[x-1]})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, edit{' ', a[x-1]})
		x--
		y--
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}
