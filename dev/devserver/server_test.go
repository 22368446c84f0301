package devserver

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A server takes several ports, probed free one after the other before it
// binds any: the same port must never be handed out twice (500 draws from
// 12,000 ports would collide almost surely otherwise).
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 500; i++ {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice (after %d ports)", p, i)
		}
		seen[p] = true
	}
}

// A port the caller chose (the frontend's, the UI's) is not bound yet
// when the server picks its internal ones: FreePort must not hand it out.
func TestFreePortSkipsReservedPorts(t *testing.T) {
	var reserved []int
	for p := 20000; p < 32000; p++ {
		if p%2 == 0 {
			reserved = append(reserved, p)
		}
	}
	reserve(reserved...)
	for i := 0; i < 200; i++ {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if p >= 20000 && p < 32000 && p%2 == 0 {
			t.Fatalf("FreePort handed out the reserved port %d", p)
		}
	}
}

// The server's database file is in write-ahead-log mode (bytes 18 and 19
// of an SQLite file's header are 2 then; 1 with a rollback journal, which
// costs several fsyncs per commit and made every step of a turn slower).
func TestDatabaseFileUsesWriteAheadLog(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db", "temporal.sqlite")
	s, err := Start(Options{DBFile: db})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	head := make([]byte, 20)
	f, err := os.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}
	if head[18] != 2 || head[19] != 2 {
		t.Fatalf("database file format bytes %d,%d: not in WAL mode", head[18], head[19])
	}
	if _, err := os.Stat(db + "-wal"); err != nil {
		t.Fatalf("no write-ahead log next to the database: %v", err)
	}
}
