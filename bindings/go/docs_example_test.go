package turngate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The "## Go" example of docs/bindings.md is Example_verifiedTurn's body (dedented, without
// the // Output: block), so the compiled, executed example is the one readers copy.
func TestDocsGoExampleIsTheCompiledExample(t *testing.T) {
	wd, _ := os.Getwd()
	doc, ok := findUp(wd, filepath.Join("docs", "bindings.md"))
	if !ok {
		t.Fatal("no docs/bindings.md above " + wd)
	}
	text := mustRead(t, doc)
	at := strings.Index(text, "\n## Go\n")
	if at < 0 {
		t.Fatal(`docs/bindings.md has no "## Go" section`)
	}
	section := text[at:]
	start := strings.Index(section, "```go\n")
	if start < 0 {
		t.Fatal(`docs/bindings.md "## Go" has no go code block`)
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
		t.Fatalf("docs/bindings.md example differs from Example_verifiedTurn:\n--- docs/bindings.md\n%s\n--- example_test.go\n%s", block, want)
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
