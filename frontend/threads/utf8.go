package threads

import "unicode/utf8"

// whole appends b to the start of a character a previous chunk cut and
// returns the complete characters, keeping the cut one's start in cut.
func whole(cut *[]byte, b []byte) string {
	all := append(*cut, b...)
	n := completeUTF8(all)
	*cut = append([]byte(nil), all[n:]...)
	return string(all[:n])
}

// completeUTF8 is the length of b's longest prefix that does not end in
// the middle of a character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
