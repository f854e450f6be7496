// Calls the `board` example with the MCP Inspector's CLI mode, as a person checking a server
// from a shell would.
//
//   node inspector_host.mjs URL
//
// The Inspector is run from the node_modules folder in LADOGA_INSPECTOR (scripts/peers installs
// it), twice, as `mcp-inspector --cli URL --protocol-era auto --format json` with `--method
// tools/list`, then `--method tools/call --tool-name plan_week --tool-arg 'focus=the release'`
// (2.x negotiates the legacy era unless told `auto`, which a 2026-07-28 server refuses). Its
// home is a temporary folder, removed at the end, so no catalog or storage of the user's is read
// or written. Prints one JSON line: the tool names, whether the call was an error, and the
// result's text. The Rust test that runs it checks the line.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const inspector = join(process.env.LADOGA_INSPECTOR, '.bin/mcp-inspector');
const url = process.argv[2];
const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));

// The CLI's `result`. It exits 5 for a tool result with `isError`, the result still on stdout.
function inspect(...args) {
    const run = spawnSync(
        inspector,
        ['--cli', url, '--protocol-era', 'auto', '--format', 'json', ...args],
        { env: { ...process.env, HOME: home }, encoding: 'utf8', timeout: 120000 },
    );
    const answer = run.stdout ? JSON.parse(run.stdout) : {};
    if (!answer.result || (run.status !== 0 && run.status !== 5)) {
        throw new Error(`mcp-inspector ${args.join(' ')} (exit ${run.status}): ${run.stdout}${run.stderr}`);
    }
    return answer.result;
}

try {
    const listed = inspect('--method', 'tools/list');
    const result = inspect(
        '--method', 'tools/call', '--tool-name', 'plan_week', '--tool-arg', 'focus=the release',
    );
    console.log(JSON.stringify({
        tools: listed.tools.map((tool) => tool.name).sort(),
        is_error: Boolean(result.isError),
        text: result.content.filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
    }));
} finally {
    rmSync(home, { recursive: true, force: true });
}
