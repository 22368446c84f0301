package activities

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// startedCommands is the host-local record of the commands that local
// activities started: one file per command, under the worker's
// interpreter home, written (and synced) before the command's process
// starts. Workers of one machine share it. A local activity's outcome
// reaches history only when its workflow task completes; when the task
// fails or its worker dies first, the next attempt finds the record and
// reports the command interrupted rather than running it again. The turn
// forgets a command's record once its outcome is in history.
type startedCommands struct {
	dir string
}

// started returns the worker's record.
func (a *Activities) started() *startedCommands {
	home := a.Home
	if home == "" {
		home = a.Store.Dir()
	}
	return &startedCommands{dir: filepath.Join(home, "started-commands")}
}

func (s *startedCommands) turnDir(turn string) string {
	return filepath.Join(s.dir, url.PathEscape(turn))
}

// record leaves the record of turn's command key; fresh is false when
// it was there already.
func (s *startedCommands) record(turn, key string) (fresh bool, err error) {
	dir := s.turnDir(turn)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	p := filepath.Join(dir, url.PathEscape(key))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + " " + time.Now().UTC().Format(time.RFC3339Nano) + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, syncDir(dir)); err != nil {
		// Not known to be on disk: the command must not start.
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	return true, nil
}

// forget removes the records of turn's commands keys, and the turn's
// folder once it is empty.
func (s *startedCommands) forget(turn string, keys []string) {
	if len(keys) == 0 {
		return
	}
	dir := s.turnDir(turn)
	for _, k := range keys {
		_ = os.Remove(filepath.Join(dir, url.PathEscape(k)))
	}
	_ = os.Remove(dir) // fails while other records remain
}

// has tells whether turn's command key has a record.
func (s *startedCommands) has(turn, key string) bool {
	_, err := os.Stat(filepath.Join(s.turnDir(turn), url.PathEscape(key)))
	return err == nil
}

// syncDir makes a new entry of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// SweepStartedRecords removes the records of turns that have ended, and
// returns how many turns' records it removed. A record matters only while
// its turn runs (a repeated attempt of its command may still come), and a
// turn forgets its own as it closes; but a turn whose closing task ran
// on a worker of another host, or whose later command went elsewhere,
// leaves records it could not forget. ended tells whether a turn (by
// workflow id) has ended; it answers false when it cannot tell.
func (a *Activities) SweepStartedRecords(ctx context.Context, ended func(ctx context.Context, turnID string) bool) (int, error) {
	s := a.started()
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the started-command records: %w", err)
	}
	n := 0
	for _, e := range entries {
		turn, err := url.PathUnescape(e.Name())
		if !e.IsDir() || err != nil || ctx.Err() != nil || !ended(ctx, turn) {
			continue
		}
		if err := os.RemoveAll(s.turnDir(turn)); err != nil {
			return n, fmt.Errorf("removing the records of %s: %w", turn, err)
		}
		n++
	}
	return n, ctx.Err()
}
