package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// A finding's ID depends on its kind and module-relative positions only, so copies of one
// module (checkouts, worktrees, the same test fuzzed in parallel copies) find the same IDs,
// and one user cache holds their recipes side by side. goweave replay ID run in a copy
// takes that copy's recipe, rebuilt and replayed there; another module's only when the
// copy has none (an ID looked up from outside any module).

// newestOwn returns the first of recipes (newest first, at least one) whose module holds
// dir, else the first.
func newestOwn(recipes []string, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return recipes[0]
	}
	for _, path := range recipes {
		if recipeModuleHolds(path, abs) {
			return path
		}
	}
	return recipes[0]
}

// recipeModuleHolds reports whether the module of the recipe at path is dir or holds it.
func recipeModuleHolds(path, dir string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var r struct {
		Module string `json:"module"`
	}
	if json.Unmarshal(data, &r) != nil || r.Module == "" {
		return false
	}
	_, in := below(r.Module, dir)
	return in
}
