package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// vectorCase is one case of a vector group (test-matrix/README.md).
type vectorCase struct {
	ID        string          `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Expect    json.RawMessage `json:"expect"`
	ErrorCode *string         `json:"error_code"`
	ErrorPath *string         `json:"error_path"`
}

// vectorGroup is one vectors/<group>.json file.
type vectorGroup struct {
	Name  string
	Cases []vectorCase
}

// loadVectors reads every *.json file of dir, in name order.
func loadVectors(dir string) ([]vectorGroup, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.json vector groups in %s", dir)
	}
	sort.Strings(files)
	var groups []vectorGroup
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cases []vectorCase
		if err := json.Unmarshal(raw, &cases); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		groups = append(groups, vectorGroup{Name: strings.TrimSuffix(filepath.Base(f), ".json"), Cases: cases})
	}
	return groups, nil
}
