// An MCP client that is not ours: the official TypeScript SDK drives
// `jarvis-cli mcp` the way Claude Desktop or Cursor would, and prints what
// it received as one JSON object for the Go test to check.
//
//   node client.mjs stdio '<the Claude Desktop snippet>' [question]
//   node client.mjs http URL TOKEN [question]
//
// It lists the tools and resources, searches, reads the first hit's
// resource, and (with a question) asks.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, third, fourth] = process.argv.slice(2);
let transport, question;
if (mode === "stdio") {
  // The snippet exactly as the user pastes it into claude_desktop_config.json.
  const server = JSON.parse(target).mcpServers.jarvis;
  transport = new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...server.env }, stderr: "inherit" });
  question = third;
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { Authorization: `Bearer ${third}` } } });
  question = fourth;
} else {
  console.error("usage: client.mjs stdio SNIPPET [question] | http URL TOKEN [question]");
  process.exit(2);
}

const client = new Client({ name: "ts-sdk-client", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion() };
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, required: t.inputSchema.required ?? [], hasOutputSchema: !!t.outputSchema }));
out.resources = (await client.listResources()).resources.map((r) => r.uri);
const search = await client.callTool({ name: "search", arguments: { query: "grant" } });
out.search = search.structuredContent;
if (out.search?.results?.length) {
  const read = await client.readResource({ uri: out.search.results[0].uri });
  out.resource = read.contents[0].text;
}
if (question) {
  const steps = [];
  const ask = await client.callTool({ name: "ask", arguments: { question } }, undefined, { onprogress: (p) => steps.push(p.message) });
  out.ask = ask.isError ? { error: ask.content[0].text } : ask.structuredContent;
  out.askProgress = steps;
}
await client.close();
console.log(JSON.stringify(out));
