package activities

import (
	"fmt"
	"sync"
)

// headTail keeps the first and last max/2 bytes of a stream.
type headTail struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte
	total int64
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total += int64(len(p))
	half := h.max / 2
	rest := p
	if len(h.head) < half {
		n := min(half-len(h.head), len(rest))
		h.head = append(h.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		h.tail = append(h.tail, rest...)
		if len(h.tail) > 2*half {
			h.tail = append(h.tail[:0:0], h.tail[len(h.tail)-half:]...)
		}
	}
	return len(p), nil
}

func (h *headTail) Total() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// String is the kept output; a cut in the middle is marked.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := h.tail
	if len(tail) > h.max/2 {
		tail = tail[len(tail)-h.max/2:]
	}
	omitted := h.total - int64(len(h.head)) - int64(len(tail))
	if omitted <= 0 {
		return string(h.head) + string(h.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes omitted of %d ...]\n%s", h.head, omitted, h.total, tail)
}
