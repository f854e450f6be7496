// Calls `board --oauth` with the official MCP TypeScript client's OAuth support, headless,
// knowing nothing but the board's URL: the client finds the authorization server, registers,
// and sends the person to the authorization URL; the person's part (log in as alice, consent to
// every scope) is done here over plain HTTP against the issuer's interaction endpoints
// (tests/peers/issuer/issuer.mjs), up to the redirect to the client's redirect URI, whose query
// `finishAuth` exchanges for the token. Then `plan_week`, approving every question asked.
//
//   node ts_oauth.mjs URL
//
// The SDK is imported from the folder in LADOGA_TS_SDK (scripts/peers installs it). Prints one
// JSON line per step as it happens: every HTTP exchange of the client (`http`), each prompt the
// issuer shows, the login, the consent, the code received, each question asked and the call's
// result. The Rust test that runs it checks the lines.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = join(process.env.LADOGA_TS_SDK, '@modelcontextprotocol/client/dist/index.mjs');
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import(pathToFileURL(sdk).href);

const url = new URL(process.argv[2]);
const redirectUri = 'http://127.0.0.1:9/callback';
const login = { login: 'alice', password: 'wonderland' };
const granted = ['board:read', 'board:write', 'board:admin'];

function step(kind, fields = {}) {
    console.log(JSON.stringify({ step: kind, ...fields }));
}

/** The person at the browser: one cookie jar, redirects followed by hand. */
class Person {
    cookies = new Map();
    callback = undefined;

    async send(target, init = {}) {
        const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(target, { ...init, redirect: 'manual', headers: { ...init.headers, cookie } });
        for (const set of response.headers.getSetCookie()) {
            const [name, value] = set.split(';')[0].split('=');
            if (value) this.cookies.set(name, value);
            else this.cookies.delete(name);
        }
        return response;
    }

    async post(target, body) {
        return this.send(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    }

    /** Follows the authorization URL through the interactions until the redirect to the client. */
    async authorize(authorizationUrl) {
        step('authorize', { resource: authorizationUrl.searchParams.getAll('resource') });
        let target = authorizationUrl;
        let response = await this.send(target);
        for (let hops = 0; hops < 20; hops += 1) {
            if (response.status >= 300 && response.status < 400) {
                target = new URL(response.headers.get('location'), target);
                if (target.href.startsWith(redirectUri)) {
                    step('code', { iss: target.searchParams.get('iss') });
                    this.callback = target;
                    return;
                }
                response = await this.send(target);
                continue;
            }
            const prompt = await response.json();
            step('prompt', { prompt: prompt.prompt, scopes: prompt.scopes, resource: prompt.resource });
            if (prompt.prompt === 'login') {
                step('login', { login: login.login });
                response = await this.post(`${target}/login`, login);
            } else if (prompt.prompt === 'consent') {
                step('consent', { granted });
                response = await this.post(`${target}/consent`, { scopes: granted });
            } else {
                throw new Error(`${target}: ${response.status} ${JSON.stringify(prompt)}`);
            }
        }
        throw new Error(`no redirect to the client after 20 steps: ${target}`);
    }
}

/** The SDK's OAuthClientProvider, keeping everything in memory for this run. */
class MemoryProvider {
    constructor(person) {
        this.person = person;
        this.expectedState = undefined;
        this.stored = {};
    }

    get redirectUrl() {
        return redirectUri;
    }

    get clientMetadata() {
        return {
            client_name: 'ladoga-peer-test',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
        };
    }

    state() {
        this.expectedState = randomBytes(16).toString('base64url');
        return this.expectedState;
    }

    clientInformation() {
        return this.stored.client;
    }

    saveClientInformation(client) {
        this.stored.client = client;
    }

    tokens() {
        return this.stored.tokens;
    }

    saveTokens(tokens) {
        this.stored.tokens = tokens;
    }

    saveCodeVerifier(verifier) {
        this.stored.verifier = verifier;
    }

    codeVerifier() {
        return this.stored.verifier;
    }

    async redirectToAuthorization(authorizationUrl) {
        await this.person.authorize(authorizationUrl);
    }
}

/** fetch, each exchange printed as an `http` step. */
async function logged(input, init = {}) {
    const method = init.method ?? (input instanceof Request ? input.method : 'GET');
    const target = input instanceof Request ? input.url : String(input);
    const response = await fetch(input, init);
    step('http', { method, url: target, status: response.status });
    return response;
}

const person = new Person();
const provider = new MemoryProvider(person);

/** A client that approves every question, connected to the board through `provider`. */
async function connect() {
    const client = new Client(
        { name: 'ladoga-peer-test', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
        step('asked', { message: request.params.message });
        return { action: 'accept', content: {} };
    });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: logged });
    try {
        await client.connect(transport);
        return client;
    } catch (error) {
        if (!(error instanceof UnauthorizedError) || !person.callback) throw error;
        const callback = person.callback.searchParams;
        if (callback.get('state') !== provider.expectedState) throw new Error(`state mismatch: ${person.callback}`);
        await transport.finishAuth(callback);
        person.callback = undefined;
        return connect();
    }
}

const client = await connect();
const result = await client.callTool(
    { name: 'plan_week', arguments: { focus: 'the release' } },
    { timeout: 120000 },
);
step('result', {
    tool: 'plan_week',
    is_error: Boolean(result.isError),
    text: result.content.filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
});
await client.close();
step('done');
