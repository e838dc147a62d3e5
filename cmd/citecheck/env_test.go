package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{
		"addr": "CITECHECK_ADDR", "max-in-flight": "CITECHECK_MAX_IN_FLIGHT", "cors-origin": "CITECHECK_CORS_ORIGIN",
	} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

// TestApplyEnvFlagsWinOverVariables: a variable sets a flag the command
// line left unset; a flag on the command line wins; an empty variable is
// unset; a value the flag refuses is an error naming the variable.
func TestApplyEnvFlagsWinOverVariables(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		addr    string
		wait    time.Duration
		origins string
		err     string
	}{
		{name: "defaults", addr: "default", wait: time.Second},
		{name: "from the environment", env: map[string]string{"CITECHECK_ADDR": ":9", "CITECHECK_QUEUE_WAIT": "3s"}, addr: ":9", wait: 3 * time.Second},
		{name: "flag wins", args: []string{"--addr", ":1"}, env: map[string]string{"CITECHECK_ADDR": ":9"}, addr: ":1", wait: time.Second},
		{name: "empty is unset", env: map[string]string{"CITECHECK_ADDR": ""}, addr: "default", wait: time.Second},
		{name: "list in one variable", env: map[string]string{"CITECHECK_CORS_ORIGIN": "https://a.example, https://b.example"},
			addr: "default", wait: time.Second, origins: "https://a.example,https://b.example"},
		{name: "repeated flag wins over the variable", args: []string{"--cors-origin", "https://c.example", "--cors-origin", "*"},
			env: map[string]string{"CITECHECK_CORS_ORIGIN": "https://a.example"}, addr: "default", wait: time.Second, origins: "https://c.example,*"},
		{name: "bad value", env: map[string]string{"CITECHECK_QUEUE_WAIT": "soon"}, err: `CITECHECK_QUEUE_WAIT="soon"`},
		{name: "bad origin", env: map[string]string{"CITECHECK_CORS_ORIGIN": "https://a.example/path"}, err: "CITECHECK_CORS_ORIGIN"},
		{name: "unrelated variables are ignored", env: map[string]string{"CITECHECK_NO_SUCH_FLAG": "x", "ADDR": ":5"}, addr: "default", wait: time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			addr := fs.String("addr", "default", "")
			wait := fs.Duration("queue-wait", time.Second, "")
			var origins originList
			fs.Var(&origins, "cors-origin", "")
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := applyEnv(fs, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *addr != c.addr || *wait != c.wait || origins.String() != c.origins {
				t.Errorf("addr %q, queue-wait %v, origins %q; want %q, %v, %q", *addr, *wait, origins.String(), c.addr, c.wait, c.origins)
			}
		})
	}
}

// TestServeReadsTheEnvironment runs the real `citecheck serve` configured
// only by variables: the address, the public URL (seen in the catalogue)
// and the CORS origins (seen in a preflight); and a bad variable is a
// usage error, as a bad flag is.
func TestServeReadsTheEnvironment(t *testing.T) {
	t.Setenv("CITECHECK_ADDR", "127.0.0.1:0")
	t.Setenv("CITECHECK_PUBLIC_URL", "https://cite.example.org")
	t.Setenv("CITECHECK_CORS_ORIGIN", "https://app.example.org")
	base, stop := serveCLIArgs(t)
	resp, err := http.Get(base + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		MCPURL string `json:"mcp_url"`
	}
	json.NewDecoder(resp.Body).Decode(&cat)
	resp.Body.Close()
	if cat.MCPURL != "https://cite.example.org/mcp" {
		t.Errorf("mcp_url %q: CITECHECK_PUBLIC_URL was not applied", cat.MCPURL)
	}
	req, _ := http.NewRequest(http.MethodOptions, base+"/v1/tools", nil)
	req.Header.Set("Origin", "https://app.example.org")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.org" {
		t.Errorf("preflight: %d, Allow-Origin %q: CITECHECK_CORS_ORIGIN was not applied", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}

	t.Setenv("CITECHECK_MAX_IN_FLIGHT", "many")
	out := runCLI(t, nil, "serve")
	if out.code != exitError || !strings.Contains(out.stderr, "CITECHECK_MAX_IN_FLIGHT") {
		t.Errorf("bad variable: exit %d, stderr %q", out.code, out.stderr)
	}
}
