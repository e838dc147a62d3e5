// Calls citecheck's MCP tools with the official TypeScript SDK's client,
// over streamable HTTP (node client.mjs http URL) or stdio (node client.mjs
// stdio COMMAND ARGS...), and prints what it got as one JSON object for the
// Go test (server/mcpclient_test.go) to judge. The input to explain comes
// on standard input. callTool validates structuredContent against the
// tool's outputSchema, so a reply that breaks its schema fails here.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";

const [mode, ...rest] = process.argv.slice(2);
const input = JSON.parse(readFileSync(0, "utf8"));
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" });
const client = new Client({ name: "citecheck-mcpclient-test", version: "0" });
await client.connect(transport);
const { tools } = await client.listTools();
const args = { id: "citation-batch-check", version: "1.0.0", input };
const explain = await client.callTool({ name: "explain", arguments: args });
const refused = await client.callTool({ name: "explain", arguments: { ...args, input: { sources: [], citations: [] } } });
await client.close();
process.stdout.write(JSON.stringify({
  tools: tools.map((t) => ({ name: t.name, description: t.description, hasOutputSchema: !!t.outputSchema })),
  text: explain.content[0].text,
  structured: explain.structuredContent,
  isError: !!explain.isError,
  refusedText: refused.content[0].text,
  refusedIsError: !!refused.isError,
}));
