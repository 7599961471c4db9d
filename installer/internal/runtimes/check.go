package runtimes

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
)

// A runtime acp brought is checked before it is kept, and again when it
// is reused (issue 26): a mirror's build without npm, or whose folder is
// a link, once made a runtime that doctor called ok, install --force
// reused and gc kept.

// CheckNodeBuild reports what is wrong with a Node.js build in dir, nil
// when it is whole: node runs and answers --version, npm is there, and
// nothing in it links out of the folder.
func (h *Host) CheckNodeBuild(ctx context.Context, dir string) error {
	if err := selfContained(dir); err != nil {
		return err
	}
	if _, err := h.probeNode(ctx, managedNodeExe(dir)); err != nil {
		return fmt.Errorf("its node does not answer --version: %v", err)
	}
	npm := filepath.Join(dir, "bin", "npm")
	if runtime.GOOS == "windows" {
		npm = filepath.Join(dir, "npm.cmd")
	}
	if fi, err := os.Stat(npm); err != nil || fi.IsDir() {
		return fmt.Errorf("it holds no npm (%s)", npm)
	}
	return nil
}

// CheckUVBuild is CheckNodeBuild for uv: uv runs and answers --version,
// and nothing links out.
func CheckUVBuild(ctx context.Context, dir string) error {
	if err := selfContained(dir); err != nil {
		return err
	}
	if _, err := VersionOf(ctx, filepath.Join(dir, uvExe())); err != nil {
		return fmt.Errorf("its uv does not answer --version: %v", err)
	}
	return nil
}

// selfContained: dir is a folder (not a link to one) and no link in it
// points outside it, where a runtime would run what it does not own.
func selfContained(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return kinds.Errorf(kinds.ErrUnsafeArchive, "%s is not a folder (a link, or a file)", dir)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		to := target
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		if rel, err := filepath.Rel(dir, to); err != nil || !filepath.IsLocal(rel) {
			return kinds.Errorf(kinds.ErrUnsafeArchive, "%s links out of its folder (to %s)", p, target)
		}
		return nil
	})
}
