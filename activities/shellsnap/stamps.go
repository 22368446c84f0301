package shellsnap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// profileFiles are what a login shell of kind k reads: for bash,
// directly or through the usual `. ~/.bashrc` of ~/.profile;
// /etc/profile.d is a directory whose own times change when a file is
// added or removed. The files these source in turn (nvm.sh,
// ~/.cargo/env) are found by [sourcedFiles].
func profileFiles(k shellKind, home string, zdotdirs []string) []string {
	switch k {
	case zshShell:
		return zshProfileFiles(home, zdotdirs)
	case dashShell:
		return []string{"/etc/profile", "/etc/profile.d", filepath.Join(home, ".profile")}
	}
	files := []string{"/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc"}
	for _, f := range []string{".bash_profile", ".bash_login", ".profile", ".bashrc", ".bash_aliases"} {
		files = append(files, filepath.Join(home, f))
	}
	return files
}

// zshProfileFiles are what a login zsh reads: zshenv, zprofile and
// zlogin, in /etc/zsh (Debian's build) or /etc (others), and in ZDOTDIR
// (the home when unset; also the one ZDOTDIR the profile set, given in
// zdotdirs). zshrc is read by interactive shells only, not by `zsh -lc`,
// but is watched as well, since a .zprofile may source it.
func zshProfileFiles(home string, zdotdirs []string) []string {
	var files []string
	for _, f := range []string{"zshenv", "zprofile", "zshrc", "zlogin"} {
		files = append(files, "/etc/zsh/"+f, "/etc/"+f)
	}
	dirs := []string{home}
	for _, d := range zdotdirs {
		if d != "" && d != home {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for _, f := range []string{".zshenv", ".zprofile", ".zshrc", ".zlogin"} {
			files = append(files, filepath.Join(d, f))
		}
	}
	return files
}

// fileStamp tells one version of a file from another.
type fileStamp struct {
	exists    bool
	ino, size uint64
	mtime     int64
}

func statFile(p string) fileStamp {
	fi, err := os.Stat(p)
	if err != nil {
		return fileStamp{}
	}
	s := fileStamp{exists: true, size: uint64(fi.Size()), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
	}
	return s
}

// profileStamps is the state of files: when that of the profile files
// changes, the snapshot is taken again.
func profileStamps(files []string) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %+v\n", f, statFile(f))
	}
	return b.String()
}
