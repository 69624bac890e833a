package embed

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLocateORTOrder(t *testing.T) {
	home, beside, named := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "custom.so")
	dirs := []string{filepath.Join(home, "lib"), beside}
	t.Setenv(ORTLibraryEnv, "")

	if loc := locateORT("", dirs); loc.path != "" || len(loc.searched) != 2 {
		t.Fatalf("nothing installed: %+v", loc)
	}
	touch(t, filepath.Join(beside, ORTLibraryName))
	if loc := locateORT("", dirs); loc.path != filepath.Join(beside, ORTLibraryName) {
		t.Fatalf("beside the executable: %+v", loc)
	}
	touch(t, filepath.Join(home, "lib", ORTLibraryName))
	if loc := locateORT("", dirs); loc.path != filepath.Join(home, "lib", ORTLibraryName) {
		t.Fatalf("the data dir comes before the executable's: %+v", loc)
	}
	touch(t, named)
	t.Setenv(ORTLibraryEnv, named)
	if loc := locateORT("", dirs); loc.path != named || !loc.explicit {
		t.Fatalf("%s comes first: %+v", ORTLibraryEnv, loc)
	}
	// An explicit path that is missing is not replaced by a found one.
	if loc := locateORT(filepath.Join(home, "missing.so"), dirs); loc.path != "" || !loc.explicit {
		t.Fatalf("missing explicit library: %+v", loc)
	}
	t.Setenv(ORTLibraryEnv, "off")
	if loc := locateORT("", dirs); !loc.off || loc.path != "" {
		t.Fatalf("off: %+v", loc)
	}
}

func TestORTSearchDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("JARVIS_HOME", home)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	if got, want := ortSearchDirs(), []string{filepath.Join(home, "lib"), filepath.Dir(exe),
		filepath.Join(filepath.Dir(filepath.Dir(exe)), "lib", "jarvis")}; !slices.Equal(got, want) {
		t.Fatalf("search dirs %v, want %v", got, want)
	}
}

func TestRuntimeFallsBackToGoAndSaysWhy(t *testing.T) {
	missing := filepath.Join(t.TempDir(), ORTLibraryName)
	rt, err := NewRuntimeWith(RuntimeOptions{ORTLibrary: missing})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if rt.Backend() != BackendGo || !strings.Contains(rt.Detail(), missing) {
		t.Fatalf("backend %q, detail %q", rt.Backend(), rt.Detail())
	}

	t.Setenv(ORTLibraryEnv, "off")
	off, err := NewRuntime()
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if off.Backend() != BackendGo || !strings.Contains(off.Detail(), ORTLibraryEnv+"=off") {
		t.Fatalf("backend %q, detail %q", off.Backend(), off.Detail())
	}

	_, err = NewRuntimeWith(RuntimeOptions{Backend: BackendORT, ORTLibrary: missing})
	if !errs.Is(err, errs.RAG) || !strings.Contains(errs.HintOf(err), "setup.sh") {
		t.Fatalf("ONNX Runtime demanded but missing: err = %v (hint %q)", err, errs.HintOf(err))
	}
	if _, err := NewRuntimeWith(RuntimeOptions{Backend: "cuda"}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unknown backend: err = %v", err)
	}
}
