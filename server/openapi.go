package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
)

// pathOpenAPI is the OpenAPI 3.1 description of the service, for hosts
// that take HTTP tools by URL (tool servers, GPT actions, gateways, client
// generators). Beyond the contract (spec §5).
const pathOpenAPI = "/openapi.json"

// openAPIDoc is GET /openapi.json, built once in New from the embedded
// contract and the status table, so that it cannot say other than what
// the service does: the schemas are the contract's own bytes, the error
// statuses come from statusOf. Only the server URL differs per request
// (it is the caller's base URL), so the document is kept as the bytes
// after its "servers" member.
type openAPIDoc struct {
	rest []byte // the document after `{"openapi":"3.1.0",`
}

const openAPIHead = `{"openapi":"3.1.0",`

// Component names, referenced from the operations.
const (
	schemaInput           = "Input"
	schemaOutput          = "Output"
	schemaError           = "Error"
	schemaResultEnvelope  = "ResultEnvelope"
	schemaErrorEnvelope   = "ErrorEnvelope"
	schemaCatalogue       = "Catalogue"
	schemaExplainEnvelope = "ExplainEnvelope"
	schemaStatus          = "Status"
	schemaQuotesArguments = "QuotesArguments"
)

// The document's types, in the member order OpenAPI documents are read.
type (
	oaDoc struct {
		OpenAPI    string            `json:"openapi"`
		Info       oaInfo            `json:"info"`
		Tags       []oaTag           `json:"tags"`
		Paths      map[string]oaPath `json:"paths"`
		Components oaComponents      `json:"components"`
		// Security is empty: the service takes no credentials (put
		// authentication in front of it, in the proxy).
		Security []struct{} `json:"security"`
	}
	oaInfo struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	oaTag struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	oaPath map[string]*oaOperation // by lower-case method
)

type oaOperation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description"`
	Tags        []string              `json:"tags"`
	RequestBody *oaRequestBody        `json:"requestBody,omitempty"`
	Responses   map[string]oaResponse `json:"responses"`
	// Beyond is x-citecheck-beyond-contract: the route is this service's
	// own (spec §5), not one of the tool page's (spec §4).
	Beyond bool `json:"x-citecheck-beyond-contract,omitempty"`
}

type oaRequestBody struct {
	Required bool                   `json:"required"`
	Content  map[string]oaMediaType `json:"content"`
}

type oaResponse struct {
	Description string                 `json:"description"`
	Headers     map[string]oaHeader    `json:"headers,omitempty"`
	Content     map[string]oaMediaType `json:"content,omitempty"`
}

type oaHeader struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

type oaMediaType struct {
	Schema   json.RawMessage      `json:"schema"`
	Examples map[string]oaExample `json:"examples,omitempty"`
}

type oaExample struct {
	Summary string          `json:"summary"`
	Value   json.RawMessage `json:"value"`
}

type oaComponents struct {
	Schemas map[string]json.RawMessage `json:"schemas"`
}

func ref(schema string) json.RawMessage {
	return json.RawMessage(`{"$ref":"#/components/schemas/` + schema + `"}`)
}

func jsonOf(schema string) map[string]oaMediaType {
	return map[string]oaMediaType{"application/json": {Schema: ref(schema)}}
}

// httpErrorCodes are the error codes the HTTP service answers: the status
// table's, less those only the CLI reports (codeForStatus leaves them out
// for the same reason).
func httpErrorCodes() []string {
	var codes []string
	for code := range statusOf {
		if !cliOnly(code) {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	return codes
}

// errorObjectSchema is the error object (spec §1) as JSON Schema: code is
// one of the codes the service answers, limit, max and actual come only
// with limit_exceeded. MCP's output schema and the OpenAPI document share
// it.
func errorObjectSchema() []byte {
	codes, _ := json.Marshal(httpErrorCodes()) // cannot fail: strings
	return []byte(`{"type":"object","additionalProperties":false,"required":["code","message","path"],"properties":{` +
		`"code":{"type":"string","enum":` + string(codes) + `},"message":{"type":"string"},"path":{"type":"string"},` +
		`"limit":{"type":"string"},"max":{"type":"integer"},"actual":{"type":"integer"}}}`)
}

// errorResponses are the error answers of an operation that can give
// these codes, keyed by status as the table maps them; each names its
// codes, so a client knows which to expect under a status.
func errorResponses(codes ...string) map[string]oaResponse {
	byStatus := map[int][]string{}
	for _, c := range codes {
		st := HTTPStatus(c)
		byStatus[st] = append(byStatus[st], c)
	}
	out := make(map[string]oaResponse, len(byStatus))
	for st, cs := range byStatus {
		r := oaResponse{
			Description: http.StatusText(st) + ": the error object, code " + strings.Join(cs, " or ") + ".",
			Content:     jsonOf(schemaErrorEnvelope),
		}
		switch {
		case slices.Contains(cs, citecheck.CodeOverloaded):
			r.Headers = map[string]oaHeader{"Retry-After": {
				Description: "Seconds to wait before retrying.",
				Schema:      json.RawMessage(`{"type":"integer","minimum":1}`),
			}}
		case slices.Contains(cs, citecheck.CodeUnsupportedMedia):
			r.Description = http.StatusText(st) + ": a Content-Type other than application/json (charset, if any, utf-8), or a Content-Encoding other than identity (the service decodes no compressed body); the error object, code " + strings.Join(cs, " or ") + "."
			r.Headers = map[string]oaHeader{"Accept-Encoding": {
				Description: "With a refused Content-Encoding: identity, the only coding a body may have.",
				Schema:      json.RawMessage(`{"type":"string"}`),
			}}
		case slices.Contains(cs, citecheck.CodeMethodNotAllowed):
			r.Description = http.StatusText(st) + ": another method on this path; the error object, code " + strings.Join(cs, " or ") + "."
			r.Headers = map[string]oaHeader{"Allow": {
				Description: "The methods this path takes.",
				Schema:      json.RawMessage(`{"type":"string"}`),
			}}
		}
		out[strconv.Itoa(st)] = r
	}
	return out
}

// every route answers these: a panic is 500 internal, another method 405.
var anyRouteCodes = []string{citecheck.CodeInternal, citecheck.CodeMethodNotAllowed}

func withErrors(ok map[string]oaResponse, codes ...string) map[string]oaResponse {
	out := errorResponses(append(slices.Clone(anyRouteCodes), codes...)...)
	for k, v := range ok {
		out[k] = v
	}
	return out
}

func newOpenAPIDoc(t *toolInfo) *openAPIDoc {
	var resultExamples, inputExamples = map[string]oaExample{}, map[string]oaExample{}
	for i, ex := range t.Examples {
		name := "contract_example_" + strconv.Itoa(i+1)
		summary := "The contract's example " + strconv.Itoa(i+1)
		inputExamples[name] = oaExample{Summary: summary, Value: json.RawMessage(compact(ex.Input))}
		resultExamples[name] = oaExample{Summary: summary, Value: envelopeOf([]byte(compact(ex.Output)))}
	}
	text := func(desc string) map[string]oaResponse {
		return map[string]oaResponse{"200": {Description: desc, Content: map[string]oaMediaType{
			"text/plain": {Schema: json.RawMessage(`{"type":"string"}`)}}}}
	}
	status := func(desc string) oaResponse {
		return oaResponse{Description: desc, Content: jsonOf(schemaStatus)}
	}
	toolName := t.ID + " " + t.Version
	paths := map[string]oaPath{
		t.ExecuteURL: {"post": {
			OperationID: strings.ReplaceAll(t.ID, "-", "_"),
			Summary:     title(t.ID),
			Description: t.Description + " Runs " + toolName + " on the input; a failed citation is a 200 answer with valid false, not an error. " +
				strings.Join(t.Semantics, " "),
			Tags: []string{"tool"},
			RequestBody: &oaRequestBody{Required: true, Content: map[string]oaMediaType{
				"application/json": {Schema: ref(schemaInput), Examples: inputExamples}}},
			Responses: withErrors(map[string]oaResponse{"200": {
				Description: "The check's result, valid or not.",
				Content: map[string]oaMediaType{"application/json": {
					Schema: ref(schemaResultEnvelope), Examples: resultExamples}},
			}}, citecheck.CodeInvalidInput, citecheck.CodeLimitExceeded, citecheck.CodeNotFound,
				citecheck.CodeUnsupportedMedia, citecheck.CodeOverloaded),
		}},
		t.explainPath(): {"post": {
			OperationID: "explain",
			Summary:     "Explain every failing citation",
			Description: "The same body as " + strings.ReplaceAll(t.ID, "-", "_") + "; answers every citation's outcome and, for each failing one, the readings under which it would hold (findings) and the one corrected citation they determine (fix), or the same error with the same status. The verdicts are exactly the check's.",
			Tags:        []string{"tool"},
			RequestBody: &oaRequestBody{Required: true, Content: map[string]oaMediaType{
				"application/json": {Schema: ref(schemaInput), Examples: inputExamples}}},
			Responses: withErrors(map[string]oaResponse{"200": {
				Description: "Every citation's outcome, findings and fix.",
				Content:     jsonOf(schemaExplainEnvelope),
			}}, citecheck.CodeInvalidInput, citecheck.CodeLimitExceeded, citecheck.CodeNotFound,
				citecheck.CodeUnsupportedMedia, citecheck.CodeOverloaded),
			Beyond: true,
		}},
		pathQuotesReport: {"post": {
			OperationID: "quotes_report",
			Summary:     "Check every quotation of a report, answered as the HTML report",
			Description: "The arguments of the MCP tool " + MCPQuotesToolName + ": a report (Markdown or plain text, a structured answer's JSON, or an Anthropic Messages response's JSON), its sources, and for a response the request it answered. " +
				"Every quotation is checked as " + MCPQuotesToolName + " checks it, under the same limits, and the answer is the self-contained HTML report a person reads (each quotation marked by its outcome, in its data-outcome attribute, shown in its source, with the fix when there is one); the tool page's paste mode shows it. A refused input is the same error as the tool's, with its status.",
			Tags: []string{"tool"},
			RequestBody: &oaRequestBody{Required: true, Content: map[string]oaMediaType{
				"application/json": {Schema: ref(schemaQuotesArguments), Examples: map[string]oaExample{"report": {
					Summary: "A report with one quotation of each common outcome",
					Value: json.RawMessage(mustMarshal(map[string]any{"text": pasteExampleText,
						"sources": []map[string]string{{"id": pasteExampleSourceID, "text": pasteExampleSource}}})),
				}}}}},
			Responses: withErrors(map[string]oaResponse{"200": {
				Description: "The HTML report, self-contained: its Content-Security-Policy lets it run only its own script and fetch nothing.",
				Headers: map[string]oaHeader{"Content-Security-Policy": {
					Description: "The report's policy, as its meta element carries it.",
					Schema:      json.RawMessage(`{"type":"string"}`),
				}},
				Content: map[string]oaMediaType{"text/html": {Schema: json.RawMessage(`{"type":"string"}`)}},
			}}, citecheck.CodeInvalidInput, citecheck.CodeLimitExceeded, citecheck.CodeUnsupportedMedia, citecheck.CodeOverloaded),
			Beyond: true,
		}},
		t.contractPath(): {"get": {
			OperationID: "get_contract",
			Summary:     "The contract of " + toolName,
			Description: "The contract JSON byte for byte as published: description, limits, input and output schemas, examples.",
			Tags:        []string{"discovery"},
			Responses: withErrors(map[string]oaResponse{"200": {
				Description: "The contract.",
				Content: map[string]oaMediaType{"application/json": {Schema: json.RawMessage(`{"type":"object","required":["id","version","input_schema","output_schema","execute_url"],"properties":{` +
					`"id":{"const":` + strconv.Quote(t.ID) + `},"version":{"const":` + strconv.Quote(t.Version) + `},` +
					`"input_schema":{"type":"object"},"output_schema":{"type":"object"},"execute_url":{"const":` + strconv.Quote(t.ExecuteURL) + `}}}`)}},
			}}, citecheck.CodeNotFound),
		}},
		pathCatalogue: {"get": {
			OperationID: "list_tools",
			Summary:     "The tool versions this server runs",
			Description: "The catalogue: one entry per tool version, with absolute contract, execute and page URLs, and the MCP endpoint.",
			Tags:        []string{"discovery"},
			Responses:   withErrors(map[string]oaResponse{"200": {Description: "The catalogue.", Content: jsonOf(schemaCatalogue)}}),
		}},
		t.pagePath(): {"get": {
			OperationID: "get_tool_page",
			Summary:     "The tool page",
			Description: "The tool page as HTML, generated from the contract, with a form to try the tool.",
			Tags:        []string{"discovery"},
			Responses: withErrors(map[string]oaResponse{"200": {Description: "The page.", Content: map[string]oaMediaType{
				"text/html": {Schema: json.RawMessage(`{"type":"string"}`)}}}}, citecheck.CodeNotFound),
		}},
		pathMCP: {"post": {
			OperationID: "mcp",
			Summary:     "MCP over streamable HTTP",
			Description: "Model Context Protocol, stateless, JSON answers: one tool, " + MCPToolName +
				`, taking {"id", "version", "input"}. Use an MCP client rather than this description. A request whose Host names neither the loopback nor the public URL while it reached a loopback listener is 403.`,
			Tags: []string{"mcp"},
			RequestBody: &oaRequestBody{Required: true, Content: map[string]oaMediaType{
				"application/json": {Schema: json.RawMessage(`{"type":"object","description":"A JSON-RPC 2.0 message.","required":["jsonrpc"],"properties":{"jsonrpc":{"const":"2.0"}}}`)}}},
			Responses: withErrors(map[string]oaResponse{
				"200": {Description: "The JSON-RPC answer.", Content: map[string]oaMediaType{
					"application/json": {Schema: json.RawMessage(`{"type":"object","description":"A JSON-RPC 2.0 response.","required":["jsonrpc"],"properties":{"jsonrpc":{"const":"2.0"}}}`)}}},
				"202": {Description: "A notification or response was accepted; no body."},
				"403": {Description: "Forbidden: the Host check (DNS rebinding) refused the request; the error object.", Content: jsonOf(schemaErrorEnvelope)},
			}, citecheck.CodeInvalidInput, citecheck.CodeLimitExceeded, citecheck.CodeUnsupportedMedia, citecheck.CodeOverloaded),
		}},
		pathHealth: {"get": {
			OperationID: "get_health",
			Summary:     "Liveness",
			Description: "200 while the process serves, draining included: restart the replica only when this fails.",
			Tags:        []string{"operations"},
			Responses:   withErrors(map[string]oaResponse{"200": status("Alive.")}),
		}},
		pathReady: {"get": {
			OperationID: "get_readiness",
			Summary:     "Readiness",
			Description: "200 while the replica takes new work; 503 from the moment shutdown begins, while in-flight requests finish: send work elsewhere.",
			Tags:        []string{"operations"},
			Responses:   withErrors(map[string]oaResponse{"200": status("Ready.")}, citecheck.CodeOverloaded),
			Beyond:      true,
		}},
		pathMetrics: {"get": {
			OperationID: "get_metrics",
			Summary:     "Prometheus metrics",
			Description: "Requests by route and outcome, their durations, checks in flight, MCP calls, and the Go runtime's and process's metrics, in the Prometheus text format.",
			Tags:        []string{"operations"},
			Responses:   withErrors(text("The metrics.")),
		}},
		pathOpenAPI: {"get": {
			OperationID: "get_openapi",
			Summary:     "This document",
			Description: "The OpenAPI 3.1 description of the service, generated from the contract when the server starts.",
			Tags:        []string{"discovery"},
			Responses: withErrors(map[string]oaResponse{"200": {Description: "The OpenAPI document.", Content: map[string]oaMediaType{
				"application/json": {Schema: json.RawMessage(`{"type":"object","required":["openapi","info","paths"],"properties":{"openapi":{"const":"3.1.0"},"info":{"type":"object"},"paths":{"type":"object"}}}`)}}}}),
			Beyond: true,
		}},
	}
	schemas := map[string]json.RawMessage{
		schemaInput:  t.InputSchema,
		schemaOutput: t.Output,
		schemaError:  errorObjectSchema(),
		schemaResultEnvelope: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["result"],` +
			`"properties":{"result":{"$ref":"#/components/schemas/` + schemaOutput + `"}}}`),
		schemaErrorEnvelope: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["error"],` +
			`"properties":{"error":{"$ref":"#/components/schemas/` + schemaError + `"}}}`),
		schemaCatalogue: catalogueSchema,
		// check_quotes's input schema, the one the MCP tool declares.
		schemaQuotesArguments: json.RawMessage(quotesInputSchema),
		schemaStatus:          json.RawMessage(`{"type":"object","additionalProperties":false,"required":["status"],"properties":{"status":{"type":"string"}}}`),
	}
	addExplainSchemas(schemas)
	doc := oaDoc{
		OpenAPI: "3.1.0",
		Info: oaInfo{
			Title:   "citecheck",
			Version: t.Version,
			Description: "citecheck runs the tool " + toolName + ": " + t.Description +
				" Every error is {\"error\": {code, message, path, …}} with the status of its code. " +
				"Operations marked x-citecheck-beyond-contract are this service's own, beyond the tool page's routes. " +
				"GET / redirects (302) to the tool page; any other path is 404 not_found.",
		},
		Tags: []oaTag{
			{"tool", "Run the tool."},
			{"discovery", "What this server runs, and how to call it."},
			{"mcp", "The same tool over the Model Context Protocol."},
			{"operations", "Probes and metrics for load balancers, orchestrators and monitoring."},
		},
		Paths:      paths,
		Security:   []struct{}{},
		Components: oaComponents{Schemas: schemas},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		panic("server: the OpenAPI document does not encode: " + err.Error())
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if !bytes.HasPrefix(b, []byte(openAPIHead)) {
		panic("server: the OpenAPI document does not start with " + openAPIHead)
	}
	return &openAPIDoc{rest: b[len(openAPIHead):]}
}

// mustMarshal is v as JSON, for values that cannot fail to encode.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	must(err)
	return b
}

// catalogueSchema describes GET /v1/tools (the catalogue type); a test
// validates the live answer against it.
var catalogueSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["tools","mcp_url"],"properties":{` +
	`"tools":{"type":"array","items":{"type":"object","additionalProperties":false,` +
	`"required":["id","version","description","contract_url","execute_url","page_url"],"properties":{` +
	`"id":{"type":"string"},"version":{"type":"string"},"description":{"type":"string"},` +
	`"contract_url":{"type":"string","format":"uri"},"execute_url":{"type":"string","format":"uri"},"explain_url":{"type":"string","format":"uri"},"page_url":{"type":"string","format":"uri"}}}},` +
	`"mcp_url":{"type":"string","format":"uri"}}}`)

// document is the OpenAPI document with base as its server URL.
func (d *openAPIDoc) document(base string) []byte {
	b := make([]byte, 0, len(openAPIHead)+len(base)+32+len(d.rest))
	b = append(b, openAPIHead...)
	b = append(b, `"servers":[{"url":`...)
	b = jsonenc.AppendString(b, base)
	b = append(b, `}],`...)
	return append(b, d.rest...)
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.openapi().document(s.baseURL(r)))
}

// addExplainSchemas adds the explain answer's schema (citecheck's
// ExplainSchemaJSON) to the components: its $defs become components of
// their own, prefixed Explain, and its references follow them, so that the
// document holds the one schema the MCP explain tool declares too.
func addExplainSchemas(schemas map[string]json.RawMessage) {
	var m map[string]json.RawMessage
	must(json.Unmarshal(citecheck.ExplainSchemaJSON(), &m))
	var defs map[string]json.RawMessage
	must(json.Unmarshal(m["$defs"], &defs))
	delete(m, "$defs")
	delete(m, "$schema")
	local := func(raw []byte) json.RawMessage {
		return json.RawMessage(bytes.ReplaceAll(raw, []byte(`"#/$defs/`), []byte(`"#/components/schemas/`+schemaExplainEnvelope+`_`)))
	}
	for name, d := range defs {
		schemas[schemaExplainEnvelope+"_"+name] = local(d)
	}
	top, err := json.Marshal(m)
	must(err)
	schemas[schemaExplainEnvelope] = local(top)
}
