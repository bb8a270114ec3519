package turngate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Affected targets and the code index through the real bridge (issue 15), on a real pnpm
// workspace where b depends on a.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAffectedTargetsPnpmChainAndCodeIndex(t *testing.T) {
	c := realClient(t)
	root, state := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{
		"pnpm-workspace.yaml":     "packages:\n  - packages/*\n",
		"packages/a/package.json": `{"name":"a"}`,
		"packages/a/src/index.ts": "export const a = 1;\n",
		"packages/b/package.json": `{"name":"b","dependencies":{"a":"workspace:*"}}`,
		"packages/b/src/index.ts": "import { a } from \"a\";\nexport const b = a;\n",
	})
	fact, err := c.AffectedTargets(t.Context(), FactsAffectedTargetsParams{Root: root, ChangedPaths: []string{"packages/a/src/index.ts", "data.bin"}, StateDir: &state})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID     string
		Reason AffectedReason
		Via    []string
	}
	var got []row
	for _, tg := range fact.Targets {
		got = append(got, row{tg.ID, tg.Reason, tg.Via})
	}
	want := []row{{"pnpm:a", "direct", nil}, {"pnpm:b", "dependent", []string{"pnpm:a"}}, {"file:data.bin", "unmapped", nil}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("targets = %+v, want %+v", got, want)
	}
	if !fact.RunAll || !reflect.DeepEqual(fact.Unmapped, []string{"data.bin"}) {
		t.Fatalf("run_all = %v, unmapped = %v", fact.RunAll, fact.Unmapped)
	}

	first, err := c.CodeIndexChangesSince(t.Context(), root, 0, &state)
	if err != nil {
		t.Fatal(err)
	}
	if first.GoImports.Source != "none" || len(first.GoImports.Modules) != 0 || first.GoImports.Packages != 0 {
		t.Fatalf("go_imports = %+v", first.GoImports)
	}
	writeTree(t, root, map[string]string{"packages/a/src/index.ts": "export const a = 2;\n"})
	next, err := c.CodeIndexChangesSince(t.Context(), root, first.CurrentSeq, &state)
	if err != nil {
		t.Fatal(err)
	}
	if next.CurrentSeq != first.CurrentSeq+1 || len(next.Changes) != 1 || next.Changes[0].Path != "packages/a/src/index.ts" || next.Changes[0].Change != "modified" {
		t.Fatalf("changes = %+v", next)
	}
	snap, err := c.CodeIndexFileHashSnapshot(t.Context(), root, []string{"packages/a/src/index.ts"}, "", &state)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Seq != next.CurrentSeq || !snap.Files[0].Known || snap.Files[0].HashSource != "indexed" || snap.Files[0].LastEditSeq != next.CurrentSeq {
		t.Fatalf("snapshot = %+v", snap)
	}
}
