// Drives the `board` example (built with `legacy-spec`) with the official MCP TypeScript SDK 1.x.
//
//   node ts_legacy_client.mjs URL
//
// `@modelcontextprotocol/sdk` 1.x, MCP 2025-11-25 and older, is imported from the folder in
// LADOGA_TS_SDK (scripts/peers installs it into .peers/node-legacy). Connects a `Client` over
// `StreamableHTTPClientTransport`, lists the tools, sets the logging level to `info`, calls
// `plan_week` with `onprogress`, waits half a second for notifications still on their way, and
// prints one JSON line: the tool names, whether the call was an error, the result's text, the
// progress `onprogress` got (`[progress, total]`), every progress notification the transport
// received (`progress_received`: the 2025 transport carries them on the session's `GET` stream,
// apart from the result, and the SDK drops a request's progress handler once its result is in),
// and the log messages' text. The Rust test that runs it checks the line.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = join(process.env.LADOGA_TS_SDK, '@modelcontextprotocol/sdk/dist/esm');
const load = (file) => import(pathToFileURL(join(dist, file)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { LoggingMessageNotificationSchema } = await load('types.js');

// How long to wait, after the result, for notifications sent before it on another stream.
const SETTLE_MS = 500;

const progress = [];
const received = [];
const logs = [];
const client = new Client({ name: 'ladoga-peer-test', version: '1.0.0' });
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const { data } = notification.params;
    logs.push(data !== null && typeof data === 'object' ? (data.message ?? '') : String(data));
});
// A late progress notification is reported as an error of the client: it is counted below.
client.onerror = () => {};
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => {
    if (message.method === 'notifications/progress') {
        received.push([message.params.progress, message.params.total]);
    }
    deliver(message, extra);
};
const listed = await client.listTools();
await client.setLoggingLevel('info');
const result = await client.callTool(
    { name: 'plan_week', arguments: { focus: 'the release' } },
    undefined,
    {
        timeout: 120000,
        onprogress: ({ progress: value, total }) => progress.push([value, total]),
    },
);
await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
await client.close();

console.log(JSON.stringify({
    tools: listed.tools.map((tool) => tool.name).sort(),
    is_error: Boolean(result.isError),
    text: result.content.filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
    progress,
    progress_received: received,
    logs,
}));
