package harness

import "fmt"

// Truncate keeps the head and the tail of s within max bytes and marks the
// cut, so a model sees both how a command started and how it ended.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	marker := fmt.Sprintf("\n[... %d bytes omitted ...]\n", len(s)-max)
	keep := max - len(marker)
	if keep < 2 {
		return s[:max]
	}
	head := keep / 2
	tail := keep - head
	head = runeStart(s, head)
	return s[:head] + fmt.Sprintf("\n[... %d bytes omitted ...]\n", len(s)-head-tail) + s[runeStart(s, len(s)-tail):]
}

// runeStart moves i back to the start of a UTF-8 sequence.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
