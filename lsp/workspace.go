package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The server builds and runs only the tests of packages inside its workspace folders: a
// fuzz command or replay naming anything else (/etc, /, /proc/self, a module elsewhere on the
// machine) is refused before anything is built or run. Folders come from initialize
// (workspaceFolders, else the deprecated rootUri/rootPath) and
// workspace/didChangeWorkspaceFolders.

// initialFolders returns the workspace folders of initialize, cleaned.
func initialFolders(params *protocol.InitializeParams) []string {
	var folders []string
	if fs, ok := params.WorkspaceFolders.Get(); ok {
		for _, f := range fs {
			if f.URI.IsFile() {
				folders = append(folders, filepath.Clean(f.URI.FsPath()))
			}
		}
	}
	if len(folders) > 0 {
		return folders
	}
	// Older clients (Neovim 0.7 among them) send only the deprecated rootUri or rootPath.
	//lint:ignore SA1019 see above
	if root := params.RootURI; root != nil && *root != "" && root.IsFile() {
		return []string{filepath.Clean(root.FsPath())}
	}
	//lint:ignore SA1019 see above
	if p, ok := params.RootPath.Get(); ok && p != "" {
		return []string{filepath.Clean(p)}
	}
	return nil
}

// DidChangeWorkspaceFolders implements workspace/didChangeWorkspaceFolders. Campaigns of a
// removed folder's packages are stopped.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	var removed []string
	s.mu.Lock()
	for _, f := range params.Event.Removed {
		dir := filepath.Clean(f.URI.FsPath())
		if i := slices.Index(s.folders, dir); i >= 0 {
			s.folders = slices.Delete(s.folders, i, i+1)
			removed = append(removed, dir)
		}
	}
	for _, f := range params.Event.Added {
		if dir := filepath.Clean(f.URI.FsPath()); f.URI.IsFile() && !slices.Contains(s.folders, dir) {
			s.folders = append(s.folders, dir)
		}
	}
	s.mu.Unlock()
	for _, dir := range removed {
		s.campaigns.cancelUnder(dir)
	}
	return nil
}

// workspaceFolders returns a copy of the folders.
func (s *Server) workspaceFolders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.folders)
}

// folderOf returns the workspace folder containing dir, or an error saying why goweave will
// not run the package in dir. Both sides are compared with symbolic links resolved, so a
// link inside the workspace cannot lead out of it.
func (s *Server) folderOf(dir string) (string, error) {
	folders := s.workspaceFolders()
	if len(folders) == 0 {
		return "", fmt.Errorf("%s: no workspace folder is open, and goweave runs only the tests of packages inside one; open the module's folder", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %v", dir, unwrapPathError(err))
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	for _, f := range folders {
		rf, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		if within(rf, real) {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s is outside the workspace folders (%s); goweave runs only the tests of packages inside them: add its folder to the workspace",
		dir, strings.Join(folders, ", "))
}

// within reports whether path is dir or below it (both clean and absolute).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// workspacePackageDir is packageDir for commands that build and run: the package must be
// inside a workspace folder.
func (s *Server) workspacePackageDir(u uri.URI) (string, error) {
	dir, err := packageDir(u)
	if err != nil {
		return "", err
	}
	if _, err := s.folderOf(dir); err != nil {
		return "", err
	}
	return dir, nil
}
