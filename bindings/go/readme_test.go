package turngate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's "## Go" example is Example_verifiedTurn's body (dedented, without the
// // Output: block), so the compiled, executed example is the one readers copy.
func TestReadmeGoExampleIsTheCompiledExample(t *testing.T) {
	wd, _ := os.Getwd()
	readme, ok := findUp(wd, "README.md")
	for ok && !strings.Contains(mustRead(t, readme), "\n## Go\n") {
		readme, ok = findUp(filepath.Dir(filepath.Dir(readme)), "README.md")
	}
	if !ok {
		t.Fatal(`no README.md with a "## Go" section above ` + wd)
	}
	text := mustRead(t, readme)
	section := text[strings.Index(text, "\n## Go\n"):]
	start := strings.Index(section, "```go\n")
	if start < 0 {
		t.Fatal(`README "## Go" has no go code block`)
	}
	block := section[start+len("```go\n"):]
	block = block[:strings.Index(block, "\n```")]

	src := mustRead(t, "example_test.go")
	const head = "func Example_verifiedTurn() {\n"
	i := strings.Index(src, head)
	if i < 0 {
		t.Fatal("example_test.go has no Example_verifiedTurn")
	}
	var body []string
	for _, line := range strings.Split(src[i+len(head):], "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "// Output:") || line == "}" {
			break
		}
		body = append(body, strings.TrimPrefix(line, "\t"))
	}
	if want := strings.Join(body, "\n"); block != want {
		t.Fatalf("README example differs from Example_verifiedTurn:\n--- README\n%s\n--- example_test.go\n%s", block, want)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
