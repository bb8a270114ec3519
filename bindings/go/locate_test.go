package turngate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLocateBridgeCommand(t *testing.T) {
	tmp := t.TempDir()
	entry := filepath.Join(tmp, "repo", "packages", "cli", "dist", "bin.js")
	deep := filepath.Join(tmp, "repo", "bindings", "go", "sub")
	empty := filepath.Join(tmp, "empty")
	pathDir := filepath.Join(tmp, "bin")
	for _, d := range []string{filepath.Dir(entry), deep, empty, pathDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(entry, []byte("// cli\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, opts []Option, wantPath string, wantArgs ...string) {
		t.Helper()
		cfg := defaultConfig()
		for _, o := range opts {
			o(&cfg)
		}
		path, args, err := resolveCommand(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		if path != wantPath || !slices.Equal(args, wantArgs) {
			t.Fatalf("got %q %q, want %q %q", path, args, wantPath, wantArgs)
		}
	}
	t.Setenv("TURNGATE_NODE", "/opt/node/bin/node")
	t.Setenv("PATH", empty)

	t.Run("TURNGATE_BRIDGE js file runs with TURNGATE_NODE", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "/srv/tg/bin.mjs")
		check(t, nil, "/opt/node/bin/node", "/srv/tg/bin.mjs", "bridge", "--stdio")
	})
	t.Run("TURNGATE_BRIDGE command line is split like a shell", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", `'/opt/my tg/turngate' --log "a b\"c"`)
		check(t, nil, "/opt/my tg/turngate", "--log", `a b"c`, "bridge", "--stdio")
	})
	t.Run("built CLI found above the working directory", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "")
		check(t, []Option{WithDir(deep)}, "/opt/node/bin/node", entry, "bridge", "--stdio")
	})
	t.Run("WithNode beats TURNGATE_NODE", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "")
		check(t, []Option{WithDir(deep), WithNode("/usr/local/bin/node")}, "/usr/local/bin/node", entry, "bridge", "--stdio")
	})
	t.Run("turngate on PATH", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "")
		exe := filepath.Join(pathDir, "turngate")
		if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", pathDir)
		check(t, []Option{WithDir(empty)}, exe, "bridge", "--stdio")
	})
	t.Run("WithCommand is used verbatim", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "/srv/tg/bin.js")
		check(t, []Option{WithCommand("/x/fake", "--a")}, "/x/fake", "--a")
	})
	t.Run("nothing found", func(t *testing.T) {
		t.Setenv("TURNGATE_BRIDGE", "")
		t.Setenv("PATH", empty)
		cfg := defaultConfig()
		WithDir(empty)(&cfg)
		_, _, err := resolveCommand(&cfg)
		var be *BridgeError
		if !errors.As(err, &be) || be.Code != "bridge_not_found" {
			t.Fatalf("err = %v", err)
		}
		want := "turngate: could not find the turngate bridge; tried $TURNGATE_BRIDGE (unset), " +
			filepath.Join("packages", "cli", "dist", "bin.js") + " in " + empty + " or above, turngate on PATH"
		if be.Error() != want {
			t.Fatalf("message\n got %s\nwant %s", be.Error(), want)
		}
	})
}

func TestSplitCommandLine(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"node  cli.js", []string{"node", "cli.js"}, false},
		{`a\ b 'c d' "e\$f" g"h"i`, []string{"a b", "c d", "e$f", "ghi"}, false},
		{`"a\nb" ''`, []string{`a\nb`, ""}, false},
		{"'open", nil, true},
		{`"open`, nil, true},
		{`trail\`, nil, true},
	}
	for _, tc := range cases {
		got, err := splitCommandLine(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommandLine(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
