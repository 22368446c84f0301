package appserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sync"
)

// MaxLineBytes bounds one protocol line (10 MB, what orchestrators such as
// Symphony buffer). A longer line is read to its end and dropped.
const MaxLineBytes = 10 << 20

// headBytes is how much of an over-long line is kept to find its id.
const headBytes = 4096

// lineReader splits a stream into lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending. A line longer than
// max is consumed whole and returned as tooLong, with its first bytes in
// line. At the end of the stream it returns io.EOF.
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	var buf []byte
	n := 0
	for {
		frag, err := l.r.ReadSlice('\n')
		n += len(frag)
		switch {
		case !tooLong && n > l.max+1:
			tooLong = true
			buf = append(buf, frag...)
			if len(buf) > headBytes {
				buf = buf[:headBytes]
			}
		case !tooLong:
			buf = append(buf, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && n > 0 {
				return trimEOL(buf), tooLong, nil
			}
			return nil, false, err
		}
		return trimEOL(buf), tooLong, nil
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// leadingID finds the request id in the first bytes of a line that was
// too long to decode, so the error can be addressed to its request.
var leadingID = regexp.MustCompile(`^\s*\{\s*(?:"[A-Za-z]+"\s*:\s*(?:"[^"\\]*"|[-0-9]+|null|true|false)\s*,\s*)*"id"\s*:\s*("[^"\\]*"|-?[0-9]+)`)

func idOfHead(head []byte) json.RawMessage {
	m := leadingID.FindSubmatch(head)
	if m == nil {
		return nil
	}
	return json.RawMessage(bytes.Clone(m[1]))
}

// lineWriter writes one JSON value per line; writes from the connection's
// goroutines never interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	// record, if set, sees each message written (a transcript).
	record func([]byte)
}

func (w *lineWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(b)
	if w.record != nil && w.err == nil {
		w.record(b[:len(b)-1])
	}
	return w.err
}

// failed is the write error that stopped the writer, if any.
func (w *lineWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
