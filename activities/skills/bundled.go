package skills

import (
	"embed"
	"io/fs"
)

//go:embed bundled
var bundledFS embed.FS

// Bundled returns the skills that ship with the binary, one folder each.
func Bundled() fs.FS {
	sub, err := fs.Sub(bundledFS, "bundled")
	if err != nil {
		panic(err) // the folder is embedded above
	}
	return sub
}
