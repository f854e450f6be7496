// Drives the `board` example with the official MCP TypeScript client, as a user's client would.
//
//   node ts_client.mjs URL
//
// The SDK is imported from the folder in LADOGA_TS_SDK (scripts/peers installs it). Lists the
// tools, calls `plan_week`, and prints one JSON line: the tool names, whether the call was an
// error, and the result's text. The Rust test that runs it checks the line.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const sdk = join(process.env.LADOGA_TS_SDK, '@modelcontextprotocol/client/dist/index.mjs');
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(sdk).href);

const client = new Client(
    { name: 'ladoga-peer-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const listed = await client.listTools();
const result = await client.callTool(
    { name: 'plan_week', arguments: { focus: 'the release' } },
    { timeout: 120000 },
);
await client.close();

console.log(JSON.stringify({
    tools: listed.tools.map((tool) => tool.name).sort(),
    is_error: Boolean(result.isError),
    text: result.content.filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
}));
