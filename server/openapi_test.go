package server

import (
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/internal/testkit"

	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The OpenAPI document is judged by two validators that are not ours: the
// OpenAPI Initiative's own JSON Schema for 3.1 documents (vendored, see
// testdata/openapi/README.md) through santhosh-tekuri/jsonschema, and
// Redocly's linter from npm. Then the service's live answers are held to
// the schemas the document gives them.

// fetchOpenAPI gets GET /openapi.json from ts, as text and parsed (numbers
// as json.Number, as jsonschema wants them).
func fetchOpenAPI(t *testing.T, ts *testServer) ([]byte, map[string]any) {
	t.Helper()
	resp, body := do(t, http.MethodGet, ts.URL+pathOpenAPI, "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s", pathOpenAPI, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return body, v.(map[string]any)
}

// docCompiler has the document as a resource, so that its component
// schemas (and their $refs between each other) compile as they stand.
func docCompiler(t *testing.T, doc map[string]any) (*jsonschema.Compiler, string) {
	t.Helper()
	const url = "https://citecheck.invalid/openapi.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	return c, url
}

func TestOpenAPIIsAValidOpenAPI31Document(t *testing.T) {
	ts := start(t, Config{})
	_, doc := fetchOpenAPI(t, ts)

	raw, err := os.ReadFile("testdata/openapi/oas-3.1-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("oas-3.1-schema.json", meta); err != nil {
		t.Fatal(err)
	}
	oas, err := c.Compile("oas-3.1-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := oas.Validate(doc); err != nil {
		t.Fatalf("not an OpenAPI 3.1 document: %v", err)
	}

	// Every component schema is a JSON Schema 2020-12 schema (OpenAPI
	// 3.1's dialect) that compiles, $refs resolved.
	dc, url := docCompiler(t, doc)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if len(schemas) == 0 {
		t.Fatal("no component schemas")
	}
	for name := range schemas {
		if _, err := dc.Compile(url + "#/components/schemas/" + name); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	servers := doc["servers"].([]any)
	if got := servers[0].(map[string]any)["url"]; got != ts.URL {
		t.Errorf("servers[0].url = %v, want the URL the caller used, %s", got, ts.URL)
	}
}

// TestOpenAPIRedoclyLint runs @redocly/cli lint, pinned in
// testdata/openapi/package.json; .ci/run installs it with npm ci.
func TestOpenAPIRedoclyLint(t *testing.T) {
	bin, err := filepath.Abs("testdata/openapi/node_modules/.bin/redocly")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("skipping: Redocly CLI is not installed (cd server/testdata/openapi && npm ci)")
	}
	ts := start(t, Config{})
	body, _ := fetchOpenAPI(t, ts)
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "lint", "--config", "redocly.yaml", "--format", "stylish", file)
	cmd.Dir = "testdata/openapi"
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
}

// operations lists the document's (path, method, operation) triples.
type docOperation struct {
	path, method string
	op           map[string]any
}

func operations(doc map[string]any) []docOperation {
	var ops []docOperation
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			ops = append(ops, docOperation{path, strings.ToUpper(method), op.(map[string]any)})
		}
	}
	return ops
}

// TestOpenAPIDescribesEveryRoute: each route of the service is in the
// document with an operationId, and only the routes beyond the tool page's
// (spec §4) carry x-citecheck-beyond-contract.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	ts := start(t, Config{})
	_, doc := fetchOpenAPI(t, ts)
	tool := embeddedTool()
	spec4 := map[string]string{ // spec §4's routes
		tool.ExecuteURL:     "POST",
		tool.contractPath(): "GET",
		pathCatalogue:       "GET",
		tool.pagePath():     "GET",
		pathMCP:             "POST",
		pathHealth:          "GET",
		pathMetrics:         "GET",
	}
	beyond := map[string]string{pathReady: "GET", pathOpenAPI: "GET", tool.explainPath(): "POST", pathQuotesReport: "POST"}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, o := range operations(doc) {
		seen[o.method+" "+o.path] = true
		id, _ := o.op["operationId"].(string)
		if id == "" || ids[id] {
			t.Errorf("%s %s: operationId %q missing or repeated", o.method, o.path, id)
		}
		ids[id] = true
		mark, _ := o.op["x-citecheck-beyond-contract"].(bool)
		if want := beyond[o.path] == o.method; mark != want {
			t.Errorf("%s %s: x-citecheck-beyond-contract %v, want %v", o.method, o.path, mark, want)
		}
	}
	for _, routes := range []map[string]string{spec4, beyond} {
		for path, method := range routes {
			if !seen[method+" "+path] {
				t.Errorf("%s %s is not in the document", method, path)
			}
		}
	}
	if len(seen) != len(spec4)+len(beyond) {
		t.Errorf("the document has %d operations, the service %d routes", len(seen), len(spec4)+len(beyond))
	}
}

// TestOpenAPIListsEveryStatusOfTheTable: every status the error table
// gives an HTTP error code is documented, with that code named; and the
// execute operation documents the status of every error the conformance
// cases draw from it.
func TestOpenAPIListsEveryStatusOfTheTable(t *testing.T) {
	ts := start(t, Config{})
	_, doc := fetchOpenAPI(t, ts)
	documented := map[string]string{} // status → descriptions
	for _, o := range operations(doc) {
		for status, r := range o.op["responses"].(map[string]any) {
			documented[status] += r.(map[string]any)["description"].(string)
		}
	}
	for code, status := range statusOf {
		if cliOnly(code) {
			continue // the CLI's
		}
		if d := documented[strconv.Itoa(status)]; !strings.Contains(d, code) {
			t.Errorf("%s (%d) is not documented: %q", code, status, d)
		}
	}
	exec := executeOperation(t, doc)
	responses := exec.op["responses"].(map[string]any)
	for _, c := range testkit.Conformance(t) {
		_, _, e := inProcess(c.Body)
		if e == nil {
			continue
		}
		if _, ok := responses[strconv.Itoa(HTTPStatus(e.Code))]; !ok {
			t.Errorf("case %s answers %d (%s), which the execute operation does not list", c.Name, HTTPStatus(e.Code), e.Code)
		}
	}
}

// executeOperation finds, in the document alone, the operation that takes
// the contract's input: the one whose request body is the Input schema.
func executeOperation(t *testing.T, doc map[string]any) docOperation {
	t.Helper()
	var found []docOperation
	for _, o := range operations(doc) {
		rb, ok := o.op["requestBody"].(map[string]any)
		if beyond, _ := o.op["x-citecheck-beyond-contract"].(bool); !ok || beyond {
			continue // explain takes the same input, beyond the contract
		}
		for _, media := range rb["content"].(map[string]any) {
			if media.(map[string]any)["schema"].(map[string]any)["$ref"] == "#/components/schemas/"+schemaInput {
				found = append(found, o)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d operations of the contract take its input, want 1", len(found))
	}
	return found[0]
}

// TestOpenAPIGeneratedCallGetsTheContractsAnswer builds the execute call as
// a client generator would, from the document only (server URL, path,
// method, media type, the request examples), and gets, for each of the
// contract's examples, the contract's output.
func TestOpenAPIGeneratedCallGetsTheContractsAnswer(t *testing.T) {
	ts := start(t, Config{})
	_, doc := fetchOpenAPI(t, ts)
	o := executeOperation(t, doc)
	server := doc["servers"].([]any)[0].(map[string]any)["url"].(string)
	content := o.op["requestBody"].(map[string]any)["content"].(map[string]any)
	if len(content) != 1 {
		t.Fatalf("request body has %d media types", len(content))
	}
	var mediaType string
	var media map[string]any
	for mediaType = range content {
		media = content[mediaType].(map[string]any)
	}
	examples := media["examples"].(map[string]any)
	answers := o.op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)[mediaType].(map[string]any)["examples"].(map[string]any)
	contract := embeddedTool()
	if len(examples) != len(contract.Examples) {
		t.Fatalf("%d request examples, the contract has %d", len(examples), len(contract.Examples))
	}
	dc, url := docCompiler(t, doc)
	resultSchema, err := dc.Compile(url + "#/paths/" + jsonenc.EscapePointer(o.path) + "/" + strings.ToLower(o.method) + "/responses/200/content/" + jsonenc.EscapePointer(mediaType) + "/schema")
	if err != nil {
		t.Fatal(err)
	}
	for name, ex := range examples {
		t.Run(name, func(t *testing.T) {
			input, _ := json.Marshal(ex.(map[string]any)["value"])
			resp, body := do(t, o.method, server+o.path, mediaType, input)
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", o.method, o.path, resp.StatusCode, body)
			}
			// The contract's own example, matched by its input.
			var want []byte
			for _, cex := range contract.Examples {
				if sameJSON(cex.Input, input) {
					want = envelopeOf(cex.Output)
				}
			}
			if want == nil {
				t.Fatalf("example %s is none of the contract's inputs", name)
			}
			if !sameJSON(body, want) {
				t.Fatalf("answer %s\nwant the contract's %s", body, want)
			}
			documented, _ := json.Marshal(answers[name].(map[string]any)["value"])
			if !sameJSON(body, documented) {
				t.Errorf("answer differs from the document's own example %s", documented)
			}
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err := resultSchema.Validate(v); err != nil {
				t.Errorf("answer breaks the documented schema: %v", err)
			}
		})
	}
}

// TestOpenAPIAnswersFollowTheirSchemas sends every conformance case and
// each documented GET, and validates each answer against the schema the
// document gives its status and media type.
func TestOpenAPIAnswersFollowTheirSchemas(t *testing.T) {
	ts := start(t, Config{})
	_, doc := fetchOpenAPI(t, ts)
	dc, url := docCompiler(t, doc)
	check := func(t *testing.T, o docOperation, resp *http.Response, body []byte) {
		t.Helper()
		status := strconv.Itoa(resp.StatusCode)
		r, ok := o.op["responses"].(map[string]any)[status].(map[string]any)
		if !ok {
			t.Fatalf("%s %s answered %s, which the document does not list: %s", o.method, o.path, status, body)
		}
		content, _ := r["content"].(map[string]any)
		mt := strings.TrimSuffix(strings.Split(resp.Header.Get("Content-Type"), ";")[0], " ")
		if _, ok := content[mt]; !ok {
			t.Fatalf("%s %s %s: media type %q is not documented", o.method, o.path, status, mt)
		}
		if mt != "application/json" {
			return
		}
		sch, err := dc.Compile(url + "#/paths/" + jsonenc.EscapePointer(o.path) + "/" + strings.ToLower(o.method) +
			"/responses/" + status + "/content/" + jsonenc.EscapePointer(mt) + "/schema")
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s %s %s: the answer breaks its documented schema: %v\n%.300s", o.method, o.path, status, err, body)
		}
	}
	exec := executeOperation(t, doc)
	for _, c := range testkit.Conformance(t) {
		resp, body := post(t, ts.URL+exec.path, c.Body)
		check(t, exec, resp, body)
	}
	resp, body := do(t, http.MethodPost, ts.URL+exec.path, "text/plain", []byte(`{}`))
	check(t, exec, resp, body) // 415
	// The quotations report: its documented example (200, text/html)
	// and refusals (400, 413), as the document says.
	for _, o := range operations(doc) {
		if o.path != pathQuotesReport {
			continue
		}
		example := o.op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["examples"].(map[string]any)["report"].(map[string]any)["value"]
		for status, b := range map[int][]byte{200: mustJSON(example), 400: []byte(`{"text":5}`), 413: mustJSON(map[string]any{"text": strings.Repeat("“q” [1] ", citecheck.MaxCitations+1)})} {
			resp, body := post(t, ts.URL+o.path, b)
			if resp.StatusCode != status {
				t.Errorf("%s %s: %d, want %d", o.method, o.path, resp.StatusCode, status)
			}
			check(t, o, resp, body)
		}
	}
	for _, o := range operations(doc) {
		if o.method != http.MethodGet {
			continue
		}
		resp, body := do(t, o.method, ts.URL+o.path, "", nil)
		check(t, o, resp, body)
		resp, body = do(t, http.MethodDelete, ts.URL+o.path, "", nil)
		check(t, o, resp, body) // 405, documented on every operation
	}
}

func TestOpenAPIServerURLIsThePublicURL(t *testing.T) {
	ts := start(t, Config{PublicURL: "https://cite.example.org/"})
	_, doc := fetchOpenAPI(t, ts)
	if got := doc["servers"].([]any)[0].(map[string]any)["url"]; got != "https://cite.example.org" {
		t.Errorf("servers[0].url = %v", got)
	}
	if !slices.Contains(httpErrorCodes(), citecheck.CodeOverloaded) || slices.Contains(httpErrorCodes(), citecheck.CodeUsage) || slices.Contains(httpErrorCodes(), citecheck.CodeUnavailable) {
		t.Errorf("httpErrorCodes() = %v", httpErrorCodes())
	}
}
