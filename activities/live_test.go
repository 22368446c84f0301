package activities

import (
	"bytes"
	"testing"
)

// The live tail keeps the last LiveTailBytes of everything written and
// where they start, however the writes are cut.
func TestLiveTailKeepsTheEnd(t *testing.T) {
	var all bytes.Buffer
	l := &liveTail{}
	for i := 0; i < 5000; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, i%40)
		all.Write(p)
		_, _ = l.Write(p)
	}
	big := bytes.Repeat([]byte("z"), LiveTailBytes+5)
	all.Write(big)
	_, _ = l.Write(big)
	all.WriteString("end")
	_, _ = l.Write([]byte("end"))

	p := l.progress("c")
	if p.Total != int64(all.Len()) || len(p.Tail) != LiveTailBytes || p.Offset != p.Total-LiveTailBytes {
		t.Fatalf("total %d (want %d), tail %d, offset %d", p.Total, all.Len(), len(p.Tail), p.Offset)
	}
	if !bytes.Equal(p.Tail, all.Bytes()[p.Offset:]) {
		t.Fatal("the tail is not the end of the output")
	}
}
