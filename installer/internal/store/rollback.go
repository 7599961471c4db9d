package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Previous returns the install Rollback would make current, the one gc
// keeps beside the current install: the newest complete install older
// than the current one. ErrNotInstalled when there is none.
func (s *Store) Previous(id string) (*Receipt, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	cur := s.currentVersion(id)
	if cur == "" {
		return nil, errorf(ErrNotInstalled, "%s is not installed: run acp install %s", id, id)
	}
	p := s.previous(id, cur)
	if p == nil {
		return nil, errorf(ErrNotInstalled, "%s has no version older than %s installed to roll back to", id, cur)
	}
	return p, nil
}

// Rollback makes the previous version (see Previous) current again, as
// one atomic replacement of the current marker, under the agent's lock so
// that a concurrent gc or install sees either version, never neither. It
// works when the current install is broken too, which is when it is most
// needed. The version rolled back from stays installed until the next gc.
func (s *Store) Rollback(ctx context.Context, id string) (*Receipt, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	unlock, err := s.Lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("roll back %s: %w", id, err)
	}
	defer unlock()
	p, err := s.Previous(id)
	if err != nil {
		return nil, fmt.Errorf("roll back %s: %w", id, err)
	}
	if err := s.MarkCurrent(ctx, id, p.Version); err != nil {
		return nil, fmt.Errorf("roll back %s to %s: mark current: %w", id, p.Version, err)
	}
	return p, nil
}

// currentVersion is the version the current marker names, even when that
// install is broken (its command deleted); without a marker that names an
// install, the one Current returns.
func (s *Store) currentVersion(id string) string {
	if data, err := readRegular(filepath.Join(s.AgentDir(id), currentFile), 256); err == nil {
		v := strings.TrimSpace(string(data))
		if v != "" && CheckIDVersion(id, v) == nil {
			if _, err := ReadReceipt(s.VersionDir(id, v)); err == nil {
				return v
			}
		}
	}
	if r, err := s.Current(id); err == nil {
		return r.Version
	}
	return ""
}

// previous is the newest complete install of id older than version cur.
func (s *Store) previous(id, cur string) *Receipt {
	if cur == "" {
		return nil
	}
	rs, _ := s.Installed(id) // newest first, complete ones only
	for i := range rs {
		if rs[i].Version != cur && NewerVersion(cur, rs[i].Version) {
			return &rs[i]
		}
	}
	return nil
}
