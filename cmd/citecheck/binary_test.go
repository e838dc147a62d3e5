package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The command as users install it (spec §5.11): built by build/citecheck.sh
// (the Dockerfile's and the release archives' build) and by `go install`,
// each run from an empty folder with an empty environment, as an image's
// entry point or a desktop client starts it, with no go on PATH.

// buildDir holds the binaries the tests build, once per test binary.
var buildDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "citecheck-build-") })

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := buildDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// repoRoot is the checkout the tests run in (two folders up).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// scriptBuild is citecheck as build/citecheck.sh builds it.
var scriptBuild = sync.OnceValues(func() (string, error) {
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "script", exeName("citecheck"))
	out, err := exec.Command("bash", "../../build/citecheck.sh", bin).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build/citecheck.sh: %v\n%s", err, out)
	}
	return bin, nil
})

// installBuild is citecheck as `go install` builds it, into its own GOBIN.
var installBuild = sync.OnceValues(func() (string, error) {
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	gobin := filepath.Join(dir, "gobin")
	cmd := exec.Command("go", "install", "github.com/citecheck/citecheck/cmd/citecheck")
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install: %v\n%s", err, out)
	}
	return filepath.Join(gobin, exeName("citecheck")), nil
})

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// builtBinary is the binary build/citecheck.sh builds, the one every test
// of the real process runs.
func builtBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := scriptBuild()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// bare is a command of the binary as an entry point starts it: in an empty
// folder, with only the variables env gives (none: not even PATH or HOME).
func bare(t *testing.T, bin string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{}, env...) // non-nil: nothing inherited
	return cmd
}

// serveAndProbe starts `serve` as cmd says, reads the address it serves on,
// asks /healthz, and stops it with SIGINT as a container runtime would
// (SIGTERM is handled alike). It returns the address.
func serveAndProbe(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`serving on http://(\S+) `).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("serve printed %q (%v); stderr %s", line, err, stderr.Bytes())
	}
	host, port, _ := net.SplitHostPort(m[1])
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	resp, err := http.Get("http://" + net.JoinHostPort(host, port) + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != `{"status":"ok"}` {
		t.Errorf("/healthz: %d %s", resp.StatusCode, body)
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve did not exit 0 on SIGINT: %v; stderr %s", err, stderr.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Error("serve did not stop within 30 s of SIGINT")
	}
	return m[1]
}

// listTools connects over stdio to cmd and runs the MCP scenarios: both
// tools listed, a call answered, refusals as tool errors.
func listTools(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	stdioScenarios(t, cs)
}

// TestTheBuiltCommandRunsFromAnEmptyFolderAndEnvironment: every command,
// in the binary each way of installing builds, with nothing around it.
func TestTheBuiltCommandRunsFromAnEmptyFolderAndEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// The inputs live in a folder of their own, so each run's folder is empty.
	inputs := t.TempDir()
	for _, f := range []string{"estuary.html", "estuary-page.jsonld"} {
		b, err := os.ReadFile(fixtures + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(inputs, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, build := range []struct {
		name  string
		build func() (string, error)
	}{
		{"build/citecheck.sh", scriptBuild},
		{"go install", installBuild},
	} {
		t.Run(build.name, func(t *testing.T) {
			bin, err := build.build()
			if err != nil {
				t.Fatal(err)
			}
			t.Run("serve answers /healthz", func(t *testing.T) {
				serveAndProbe(t, bare(t, bin, nil, "serve", "--addr", "127.0.0.1:0"))
			})
			t.Run("mcp lists both tools", func(t *testing.T) {
				listTools(t, bare(t, bin, nil, "mcp"))
			})
			t.Run("annotations reads an HTML source", func(t *testing.T) {
				cmd := bare(t, bin, nil, "annotations", "--source", "https://example.org/estuary.html="+filepath.Join(inputs, "estuary.html"),
					filepath.Join(inputs, "estuary-page.jsonld"))
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				// Positions count over the body's textContent: the second
				// annotation anchors only when the page is read as HTML.
				if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != exitFailed ||
					!strings.Contains(string(out), `"id":"urn:uuid:6b2a1c4e-1f0d-4c2e-9a51-0c8f2f0a1d02","outcome":"anchored"`) {
					t.Errorf("exit %v, stdout %s\nstderr %s", err, out, stderr.Bytes())
				}
			})
			t.Run("run checks a request", func(t *testing.T) {
				cmd := bare(t, bin, nil, "run", "citation-batch-check", "1.0.0", "--input", "-")
				cmd.Stdin = strings.NewReader(validBody)
				out, err := cmd.Output()
				if want, _ := libraryAnswer([]byte(validBody)); err != nil || string(out) != want {
					t.Errorf("%v: %s, want %s", err, out, want)
				}
			})
		})
	}
}

// dockerfile is what the Dockerfile says of the build and the entry point.
type dockerfile struct {
	buildRun   string            // the RUN that builds the command, in the build stage
	copyFrom   [2]string         // COPY --from=build SRC DST into the final image
	copies     [][2]string       // COPY SRC DST from the build context into the final image
	final      string            // the final stage's base image
	env        map[string]string // ENV of the final stage
	labels     map[string]string // LABEL of the final stage
	expose     []string
	entrypoint []string
	cmd        []string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	d := dockerfile{env: map[string]string{}, labels: map[string]string{}}
	execForm := func(kw, v string) []string {
		var a []string
		if err := json.Unmarshal([]byte(v), &a); err != nil || len(a) == 0 {
			t.Fatalf("%s %s: want the exec form, a JSON array (the image has no shell)", kw, v)
		}
		return a
	}
	for _, line := range strings.Split(string(raw), "\n") {
		kw, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		v = strings.TrimSpace(v)
		switch kw {
		case "FROM":
			d.final = strings.Fields(v)[0]
			d.env, d.labels, d.copies = map[string]string{}, map[string]string{}, nil // a new stage
		case "RUN":
			if strings.Contains(v, "build/citecheck.sh") {
				d.buildRun = v
			}
		case "COPY":
			if f := strings.Fields(v); len(f) == 3 && f[0] == "--from=build" {
				d.copyFrom = [2]string{f[1], f[2]}
			} else if len(f) == 2 {
				d.copies = append(d.copies, [2]string{f[0], f[1]})
			}
		case "LABEL":
			k, val, ok := strings.Cut(v, "=")
			if unq, err := strconv.Unquote(val); ok && err == nil {
				val = unq
			}
			d.labels[k] = val
		case "ENV":
			k, val, ok := strings.Cut(v, "=")
			if !ok || strings.ContainsAny(val, ` "'$`) {
				t.Fatalf("ENV %s: want one KEY=VALUE, unquoted", v)
			}
			d.env[k] = val
		case "EXPOSE":
			d.expose = strings.Fields(v)
		case "ENTRYPOINT":
			d.entrypoint = execForm(kw, v)
		case "CMD":
			d.cmd = execForm(kw, v)
		}
	}
	return d
}

// TestTheImageCarriesTheLicence holds the Dockerfile's final stage to
// what the release archives and the npm package give: the repository's
// LICENSE in the image, at /LICENSE beside the binary, and the OCI
// annotation registries show naming the licence package.json names.
func TestTheImageCarriesTheLicence(t *testing.T) {
	d := readDockerfile(t)
	if !slices.Contains(d.copies, [2]string{"LICENSE", "/LICENSE"}) {
		t.Errorf("the image's COPYs from the build context are %q; want LICENSE /LICENSE among them", d.copies)
	}
	raw, err := os.ReadFile("../../js/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ License string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := d.labels["org.opencontainers.image.licenses"]; pkg.License != "Apache-2.0" || got != pkg.License {
		t.Errorf("the image's licence label is %q and package.json's licence %q; want both Apache-2.0", got, pkg.License)
	}
}

// TestTheImageRunsAsItsDockerfileSays holds the Dockerfile to what the
// tests run: its build is build/citecheck.sh (the binary of
// builtBinary); its entry point with its CMD and ENV, run from an empty
// folder with nothing else in the environment, serves HTTP on every
// interface at the port it exposes; and its entry point with server.json's
// package arguments, as the MCP registry's clients run the package
// (docker run -i IMAGE ARGS), serves MCP over stdio.
func TestTheImageRunsAsItsDockerfileSays(t *testing.T) {
	d := readDockerfile(t)
	m := regexp.MustCompile(`^build/citecheck\.sh (\S+)$`).FindStringSubmatch(d.buildRun)
	if m == nil {
		t.Fatalf("the build stage builds with %q, not build/citecheck.sh OUT", d.buildRun)
	}
	if d.copyFrom[0] != m[1] || len(d.entrypoint) == 0 || d.entrypoint[0] != d.copyFrom[1] {
		t.Fatalf("the image runs %q, copied from %q, but the build wrote %s", d.entrypoint, d.copyFrom, m[1])
	}
	if !strings.HasPrefix(d.final, "gcr.io/distroless/static") {
		t.Errorf("final stage %s: the static binary needs no more than distroless/static", d.final)
	}
	if !slices.Equal(d.cmd, []string{"serve"}) {
		t.Errorf("CMD %q: want [serve], so that docker run IMAGE serves HTTP", d.cmd)
	}
	host, port, err := net.SplitHostPort(d.env["CITECHECK_ADDR"])
	if err != nil || (host != "" && !net.ParseIP(host).IsUnspecified()) || !slices.Equal(d.expose, []string{port}) {
		t.Fatalf("ENV CITECHECK_ADDR=%s, EXPOSE %v: want every interface, at the exposed port", d.env["CITECHECK_ADDR"], d.expose)
	}
	bin := builtBinary(t)
	env := func(addr string) []string {
		var kv []string
		for k, v := range d.env {
			if k == "CITECHECK_ADDR" && addr != "" {
				v = addr
			}
			kv = append(kv, k+"="+v)
		}
		return kv
	}

	t.Run("docker run -p 8080:8080 IMAGE", func(t *testing.T) {
		// The exposed port may be taken on the machine that runs the
		// tests: the same host, on a free port.
		got := serveAndProbe(t, bare(t, bin, env(net.JoinHostPort(host, "0")), append(d.entrypoint[1:], d.cmd...)...))
		if h, _, _ := net.SplitHostPort(got); !net.ParseIP(h).IsUnspecified() {
			t.Errorf("served on %s: want every interface", got)
		}
	})
	t.Run("server.json's package: docker run -i IMAGE mcp", func(t *testing.T) {
		raw, err := os.ReadFile("../../server.json")
		if err != nil {
			t.Fatal(err)
		}
		var s serverJSON
		if err := json.Unmarshal(raw, &s); err != nil || len(s.Packages) != 1 || s.Packages[0].Transport.Type != "stdio" {
			t.Fatalf("server.json: %v %+v", err, s.Packages)
		}
		args := slices.Clone(d.entrypoint[1:])
		for _, a := range s.Packages[0].PackageArguments {
			if a.Type != "positional" {
				t.Fatalf("package argument %+v: only positional ones are run here", a)
			}
			args = append(args, a.Value)
		}
		listTools(t, bare(t, bin, env(""), args...))
	})
}

// TestReleaseArchiveOfThisMachine builds with build/release.sh, twice,
// the release archive for the machine the tests run on and one of the
// other kind (a .zip beside a .tar.gz, or the other way on Windows), and
// holds them to what a user downloads: the same bytes both times, listed
// in SHA256SUMS, each holding the binary, README.md and LICENSE, the
// repository's, under one folder, owned by 0:0 at one fixed time;
// unpacked, this machine's runs from an empty folder and environment and
// names the version stamped in. The second target costs one cross build
// of the command.
func TestReleaseArchiveOfThisMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release")
	}
	const version = "v1.2.3-test.1"
	type target struct{ goos, exe, ext string }
	targets := []target{{runtime.GOOS, "citecheck", ".tar.gz"}, {"windows", "citecheck.exe", ".zip"}}
	if runtime.GOOS == "windows" {
		targets = []target{{"windows", "citecheck.exe", ".zip"}, {"linux", "citecheck", ".tar.gz"}}
	}
	args := []string{"../../build/release.sh", version, ""}
	var names []string
	for _, tg := range targets {
		args = append(args, tg.goos+"/"+runtime.GOARCH)
		names = append(names, "citecheck_"+version+"_"+tg.goos+"_"+runtime.GOARCH)
	}
	var archives [2][][]byte
	var sums [2]string
	for i := range archives {
		out := t.TempDir()
		args[2] = out
		cmd := exec.Command("bash", args...)
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build/release.sh: %v\n%s", err, b)
		}
		for j, tg := range targets {
			a, err := os.ReadFile(filepath.Join(out, names[j]+tg.ext))
			if err != nil {
				t.Fatal(err)
			}
			archives[i] = append(archives[i], a)
		}
		b, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = string(b)
	}
	if !slices.EqualFunc(archives[0], archives[1], bytes.Equal) || sums[0] != sums[1] {
		t.Fatal("two builds of the same source gave different archives")
	}
	var wantSums string
	for j, tg := range targets {
		sum := sha256.Sum256(archives[0][j])
		wantSums += hex.EncodeToString(sum[:]) + "  " + names[j] + tg.ext + "\n"
	}
	if sums[0] != wantSums {
		t.Errorf("SHA256SUMS %q, want %q", sums[0], wantSums)
	}

	docs := []string{"README.md", "LICENSE"}
	var binary string
	for j, tg := range targets {
		name := names[j]
		want := []string{name + "/", name + "/" + tg.exe}
		for _, doc := range docs {
			want = append(want, name+"/"+doc)
		}
		files, err := unpack(archives[0][j], tg.ext, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		times := map[int64]bool{}
		for _, f := range files {
			got = append(got, f.name)
			times[f.mtime] = true
			if f.uid != 0 || f.gid != 0 {
				t.Errorf("%s owned by %d:%d", f.name, f.uid, f.gid)
			}
		}
		if !slices.Equal(got, want) || len(times) != 1 {
			t.Fatalf("%s holds %q at %d times, want %q at one", name+tg.ext, got, len(times), want)
		}
		for i, doc := range docs {
			repo, err := os.ReadFile(filepath.Join(repoRoot(t), doc))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(files[2+i].data, repo) {
				t.Errorf("the %s of %s is not the repository's", doc, name+tg.ext)
			}
		}
		if j == 0 {
			binary = files[1].path
		}
	}

	out, err := bare(t, binary, nil, "version").Output()
	if err != nil {
		t.Fatalf("unpacked citecheck version: %v", err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != "citecheck "+version {
		t.Errorf("citecheck version says %q, want %q", first, "citecheck "+version)
	}
}

// unpacked is one entry of an archive, written under a folder.
type unpacked struct {
	name, path string
	data       []byte
	mtime      int64
	uid, gid   int
}

func unpack(archive []byte, ext, dir string) ([]unpacked, error) {
	var files []unpacked
	write := func(u unpacked, mode os.FileMode) error {
		u.path = filepath.Join(dir, filepath.FromSlash(u.name))
		files = append(files, u)
		if strings.HasSuffix(u.name, "/") {
			return os.MkdirAll(u.path, 0o755)
		}
		return os.WriteFile(u.path, u.data, mode)
	}
	if ext == ".zip" {
		zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				return nil, err
			}
			if err := write(unpacked{name: f.Name, data: data, mtime: f.Modified.Unix()}, f.Mode()); err != nil {
				return nil, err
			}
		}
		return files, nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		if err := write(unpacked{name: h.Name, data: data, mtime: h.ModTime.Unix(), uid: h.Uid, gid: h.Gid}, os.FileMode(h.Mode)); err != nil {
			return nil, err
		}
	}
}
