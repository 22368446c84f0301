package devserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// The server's visibility records (what lists and searches read: every
// workflow's start, close and search-attribute change) are kept in a
// database of their own, beside the one that holds the workflows'
// histories and state. The SQLite plugin gives each database one
// connection, so with one database every visibility write (a REPLACE
// across the visibility table's indexes, several per turn) waited for
// and held up the history writes a turn's next step waits on. Apart,
// the two are written side by side. Visibility is eventually consistent
// in any Temporal server, so nothing reads one expecting the other.
//
// A database file made before the split keeps its visibility records
// inside: it is used as it is (one file) for as long as no visibility
// file stands beside it.

// visibilityStore names the visibility database in the server's config.
const visibilityStore = "sqlite-visibility"

// VisibilityFile is the visibility database beside the SQLite file db
// (temporal.db: temporal-visibility.db).
func VisibilityFile(db string) string {
	ext := filepath.Ext(db)
	return strings.TrimSuffix(db, ext) + "-visibility" + ext
}

// buildVisibilitySQL is the visibility store's database, or nil when the
// visibility records stay in the main database (a file from before the
// split).
func buildVisibilitySQL(opts Options) (*config.SQL, error) {
	conf := config.SQL{PluginName: sqliteplugin.PluginName}
	if opts.Ephemeral {
		// A memory database is set up by the plugin (both schemas).
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		conf.DatabaseName = fmt.Sprintf("interpreter-visibility-%d-%d", os.Getpid(), time.Now().UnixNano())
		return &conf, nil
	}
	file := VisibilityFile(opts.DBFile)
	_, mainErr := os.Stat(opts.DBFile)
	_, visErr := os.Stat(file)
	if mainErr == nil && errors.Is(visErr, os.ErrNotExist) {
		return nil, nil // made before the split
	}
	conf.ConnectAttributes = map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": syncMode(opts)}
	conf.DatabaseName = file
	if errors.Is(visErr, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return nil, fmt.Errorf("creating database directory: %w", err)
		}
		if err := sqliteschema.SetupSchema(&conf); err != nil {
			return nil, fmt.Errorf("setting up the visibility schema in %s: %w", file, err)
		}
	}
	return &conf, nil
}
