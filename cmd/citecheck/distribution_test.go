package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// How citecheck reaches MCP users: server.json for the official MCP
// registry, the Dockerfile its package names, and the client snippets of
// docs/mcp-clients.md. Each is checked against what it claims to start.

// serverJSON is the part of server.json these tests read.
type serverJSON struct {
	Schema   string `json:"$schema"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType     string                `json:"registryType"`
		Identifier       string                `json:"identifier"`
		Transport        struct{ Type string } `json:"transport"`
		PackageArguments []struct {
			Type, Value string
		} `json:"packageArguments"`
	} `json:"packages"`
	Remotes []struct {
		Type, URL string
	} `json:"remotes"`
}

func registrySchema(t *testing.T) (*jsonschema.Schema, string) {
	t.Helper()
	raw, err := os.ReadFile("testdata/mcp-registry/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	id := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch, id
}

func validateJSON(sch *jsonschema.Schema, raw []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// TestServerJSONFollowsTheRegistrySchema validates server.json against the
// registry's published schema (vendored), then holds what it says to the
// code: the version MCP reports, the image's label, the stdio subcommand,
// the HTTP endpoint's path, and the registry's own rules for remotes.
func TestServerJSONFollowsTheRegistrySchema(t *testing.T) {
	raw, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, id := registrySchema(t)
	if err := validateJSON(sch, raw); err != nil {
		t.Fatalf("server.json breaks the registry's schema: %v", err)
	}
	// The validator is live: a name without its namespace is refused.
	if err := validateJSON(sch, bytes.Replace(raw, []byte(`"io.github.citecheck/citecheck"`), []byte(`"citecheck"`), 1)); err == nil {
		t.Error("the schema took a name without a namespace")
	}
	var s serverJSON
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != id {
		t.Errorf("$schema %q, the vendored schema is %q", s.Schema, id)
	}

	// The version is what the MCP server reports in initialize.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.NewMCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Version; s.Version != v || v != citecheck.ToolVersion {
		t.Errorf("server.json version %q, MCP serverInfo.version %q, tool %q", s.Version, v, citecheck.ToolVersion)
	}

	// The package is the image the Dockerfile builds: its label names the
	// server (the registry's ownership check), its tag is the version, and
	// its argument is the stdio subcommand.
	if len(s.Packages) != 1 {
		t.Fatalf("%d packages", len(s.Packages))
	}
	p := s.Packages[0]
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	label := regexp.MustCompile(`(?m)^LABEL io\.modelcontextprotocol\.server\.name="([^"]+)"$`).FindSubmatch(dockerfile)
	if label == nil || string(label[1]) != s.Name {
		t.Errorf("the Dockerfile's server-name label %q is not server.json's name %q", label, s.Name)
	}
	if p.RegistryType != "oci" || !strings.HasSuffix(p.Identifier, ":"+s.Version) || p.Transport.Type != "stdio" {
		t.Errorf("package %+v: want an oci image tagged %s over stdio", p, s.Version)
	}
	var args []string
	for _, a := range p.PackageArguments {
		args = append(args, a.Value)
	}
	if !slices.Equal(args, []string{"mcp"}) {
		t.Errorf("package arguments %q, want the stdio subcommand [mcp]", args)
	}

	// The remote is an HTTPS /mcp endpoint, as the registry requires (no
	// localhost, no plain HTTP), at the path the service serves MCP on.
	if len(s.Remotes) != 1 || s.Remotes[0].Type != "streamable-http" || !strings.HasPrefix(s.Remotes[0].URL, "https://") {
		t.Fatalf("remotes %+v", s.Remotes)
	}
	if got, want := s.Remotes[0].URL[strings.LastIndex(s.Remotes[0].URL, "/"):], mcpPath(t); got != want {
		t.Errorf("remote path %q, the service serves MCP at %q", got, want)
	}
}

// mcpPath is where a server answers MCP, as its own catalogue says.
func mcpPath(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	server.New(server.Config{}).ServeHTTP(rec, httptest.NewRequest("GET", "/v1/tools", nil))
	var cat struct {
		MCPURL string `json:"mcp_url"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cat); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cat.MCPURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// snippet is one configuration block of docs/mcp-clients.md, marked by
// the comment before it: <!-- snippet: CLIENT [TRANSPORT] -->.
type snippet struct {
	client, transport, lang, body string
}

func readSnippets(t *testing.T) []snippet {
	t.Helper()
	doc, err := os.ReadFile("../../docs/mcp-clients.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- snippet: ([a-z-]+)(?: ([a-z]+))? -->\n```([a-z]+)\n(.*?)```")
	var out []snippet
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		out = append(out, snippet{m[1], m[2], m[3], m[4]})
	}
	if n := strings.Count(string(doc), "<!-- snippet:"); n != len(out) {
		t.Fatalf("%d snippet markers, %d parsed: a marker must sit right above its fenced block", n, len(out))
	}
	return out
}

// clientShape is each client's configuration file: its top-level member
// and whether entries carry "type".
var clientShape = map[string]struct {
	top       string
	typed     bool
	untypedOK bool // a URL alone means HTTP (Cursor)
}{
	"claude-desktop": {top: "mcpServers"},
	"claude-code":    {top: "mcpServers", typed: true},
	"vscode":         {top: "servers", typed: true},
	"cursor":         {top: "mcpServers", untypedOK: true},
}

type serverEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	URL     string   `json:"url"`
}

// TestMCPClientSnippets parses every snippet of docs/mcp-clients.md, holds
// it to its client's configuration shape, and starts what it names: the
// stdio command (with the freshly built binary for "citecheck") and the
// HTTP URL (on a test server in place of 127.0.0.1:8080), each then
// listing and calling the tool.
func TestMCPClientSnippets(t *testing.T) {
	snippets := readSnippets(t)
	seen := map[string]bool{}
	stdioCommands := map[string][]string{} // by snippet
	httpURLs := map[string]string{}
	for _, s := range snippets {
		seen[strings.TrimSpace(s.client+" "+s.transport)] = true
		if s.lang != "json" {
			continue
		}
		shape, ok := clientShape[s.client]
		if !ok {
			t.Fatalf("snippet for unknown client %q", s.client)
		}
		var cfg map[string]map[string]serverEntry
		dec := json.NewDecoder(strings.NewReader(s.body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Fatalf("%s %s: not JSON of the expected shape: %v", s.client, s.transport, err)
		}
		servers, ok := cfg[shape.top]
		if len(cfg) != 1 || !ok || len(servers) != 1 {
			t.Fatalf("%s %s: want exactly {%q: {one server}}, got %v", s.client, s.transport, shape.top, cfg)
		}
		for name, e := range servers {
			if name != "citecheck" {
				t.Errorf("%s: server named %q", s.client, name)
			}
			switch {
			case shape.typed && e.Type != s.transport:
				t.Errorf("%s %s: type %q", s.client, s.transport, e.Type)
			case !shape.typed && e.Type != "":
				t.Errorf("%s %s: %s takes no type member", s.client, s.transport, s.client)
			}
			switch s.transport {
			case "stdio":
				if e.Command == "" || e.URL != "" {
					t.Errorf("%s stdio: %+v", s.client, e)
				}
				stdioCommands[s.client] = append([]string{e.Command}, e.Args...)
			case "http":
				if e.URL == "" || e.Command != "" || (!shape.typed && !shape.untypedOK) {
					t.Errorf("%s http: %+v", s.client, e)
				}
				httpURLs[s.client] = e.URL
			default:
				t.Errorf("%s: transport %q", s.client, s.transport)
			}
		}
	}
	for _, want := range []string{"claude-desktop stdio", "claude-code-cli", "claude-code stdio", "claude-code http",
		"vscode stdio", "vscode http", "cursor stdio", "cursor http"} {
		if !seen[want] {
			t.Errorf("no snippet %q", want)
		}
	}
	// The Claude Code commands add the same servers as the JSON.
	for _, s := range snippets {
		if s.client != "claude-code-cli" {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(s.body), "\n") {
			f := strings.Fields(line)
			if len(f) < 4 || f[0] != "claude" || f[1] != "mcp" || f[2] != "add" {
				t.Fatalf("claude-code-cli: %q is not claude mcp add", line)
			}
			if i := slices.Index(f, "--"); i >= 0 {
				stdioCommands[s.client] = f[i+1:]
			} else if f[3] == "--transport" && len(f) == 7 && f[4] == "http" {
				httpURLs[s.client] = f[6]
			} else {
				t.Fatalf("claude-code-cli: %q is neither a stdio nor an http add", line)
			}
		}
	}

	bin := builtBinary(t)
	for client, argv := range stdioCommands {
		if argv[0] != "citecheck" {
			t.Fatalf("stdio command %q: want the citecheck binary", argv)
		}
		t.Run(client+" stdio", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "snippet", Version: "0"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, argv[1:]...)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			stdioScenarios(t, cs)
		})
	}
	base := startServer(t)
	for client, u := range httpURLs {
		const documented = "http://127.0.0.1:8080"
		if !strings.HasPrefix(u, documented+"/") {
			t.Fatalf("http URL %q: want serve's default address %s", u, documented)
		}
		t.Run(client+" http", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "snippet", Version: "0"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + strings.TrimPrefix(u, documented)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			stdioScenarios(t, cs)
		})
	}
}

// startServer runs a server on a free loopback port until the test ends
// and returns its base URL.
func startServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { server.New(server.Config{}).Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}
