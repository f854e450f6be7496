// A real OAuth 2.1 authorization server for the OAuth tests: oidc-provider (imported from the
// node_modules of the folder in LADOGA_ISSUER, where scripts/peers installs it), with interactions
// of its own that a test drives over plain HTTP, and test-only endpoints to rotate its keys and
// read what happened.
//
//   node issuer.mjs PORT STATE_DIR [--ttl SECONDS] [--alg RS256|ES256] [--password PASSWORD]
//
// Listens on 127.0.0.1:PORT (0: a free port, written to STATE_DIR/port once it listens); the
// issuer identifier is http://127.0.0.1:PORT. Open dynamic client
// registration, PKCE (S256) always, the authorization code and refresh token grants (a refresh
// token for every code of a client registered for refresh_token), public clients. Resource
// indicators (RFC 8707): any http(s) resource gets JWT access tokens whose `aud` is that resource,
// the scopes board:read, board:write and board:admin, lasting --ttl seconds (300), signed with
// --alg (RS256). One RSA and one P-256 key, made at start; their private halves are in
// STATE_DIR/keys.json ({"keys": [{"kid", "alg", "pem"}]}, PKCS#8) so a test can forge tokens.
//
// One account, `alice`, with the password --password (`wonderland`). The interactions:
//   GET  /interaction/UID          {"uid", "prompt": "login"|"consent", "reasons", "client_id",
//                                   "scopes": [asked], "resource": [asked], "missing": {...}}
//   POST /interaction/UID/login    {"login", "password"}  -> 303 to where oidc-provider goes on
//   POST /interaction/UID/consent  {"scopes": [granted]}  -> 303 likewise; the rest is refused
// And for the tests:
//   POST /test/rotate              both keys replaced by new ones with new kids (JWKS, keys.json)
//   GET  /test/log                 {"events": [...]}: registration, login, consent, token (its
//                                  grant type, scope, aud, kid, alg, whether a refresh token came)
//                                  rotate events, and a jwks event for each fetch of the key set,
//                                  in order

import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync, renameSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const oidcProvider = join(process.env.LADOGA_ISSUER, 'node_modules/oidc-provider/lib');
const load = (file) => import(pathToFileURL(join(oidcProvider, file)).href);
const { default: Provider, errors, interactionPolicy } = await load('index.js');
const { default: MemoryAdapter } = await load('adapters/memory_adapter.js');

/** oidc-provider's in-memory store, one for the process: each provider made by a key rotation
 * finds the clients, sessions, grants and refresh tokens of the ones before. */
class SharedMemory extends MemoryAdapter {
    constructor(model) {
        super(model);
    }
}

const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        ttl: { type: 'string', default: '300' },
        alg: { type: 'string', default: 'RS256' },
        password: { type: 'string', default: 'wonderland' },
    },
});
const [port, stateDir] = positionals;
if (!port || !stateDir || !['RS256', 'ES256'].includes(options.alg)) {
    console.error('usage: node issuer.mjs PORT STATE_DIR [--ttl SECONDS] [--alg RS256|ES256] [--password PASSWORD]');
    process.exit(2);
}
// Set once the server listens: on PORT, or with 0 on a port the system picks, which it writes to
// STATE_DIR/port for the test (no other process can take it in between).
let issuer;
const accessTokenTtl = Number(options.ttl);
const boardScopes = ['board:read', 'board:write', 'board:admin'];
const account = 'alice';

/** What happened, in order, for GET /test/log. */
const events = [];

/** A new RSA and a new P-256 key, each with a kid of its own. */
function newKeys() {
    return [
        { alg: 'RS256', pair: generateKeyPairSync('rsa', { modulusLength: 2048 }) },
        { alg: 'ES256', pair: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
    ].map(({ alg, pair }) => ({ kid: `${alg.toLowerCase()}-${randomUUID()}`, alg, key: pair.privateKey }));
}

/** Writes the private keys to STATE_DIR/keys.json, whole or not at all. */
function writeKeys(keys) {
    const file = join(stateDir, 'keys.json');
    const pems = keys.map(({ kid, alg, key }) => ({ kid, alg, pem: key.export({ type: 'pkcs8', format: 'pem' }) }));
    writeFileSync(`${file}.tmp`, JSON.stringify({ keys: pems }));
    renameSync(`${file}.tmp`, file);
}

/** The claims of a JWT's header and payload, unverified (the issuer made it). */
function decoded(jwt) {
    const [header, payload] = jwt.split('.').slice(0, 2)
        .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    return { header, payload };
}

/** The consent prompt also comes back for a scope asked for again after it was refused. */
function policy() {
    const { base, Check } = interactionPolicy;
    const prompts = base();
    prompts.get('consent').checks.push(new Check('rs_scopes_refused', 'requested scopes refused before', (ctx) => {
        const { oidc } = ctx;
        if (oidc.result?.consent) return Check.NO_NEED_TO_PROMPT;
        return Object.entries(oidc.resourceServers).some(([indicator, server]) => {
            const granted = new Set(oidc.grant.getResourceScopeFiltered(indicator, oidc.requestParamScopes).split(' '));
            return [...oidc.requestParamScopes].some((scope) => server.scopes.has(scope) && !granted.has(scope));
        });
    }));
    return prompts;
}

const cookieKeys = [randomBytes(32).toString('base64url')];

/** An oidc-provider signing with `keys`. */
function provider(keys) {
    const config = {
        adapter: SharedMemory,
        jwks: { keys: keys.map(({ kid, alg, key }) => ({ ...key.export({ format: 'jwk' }), kid, alg, use: 'sig' })) },
        cookies: { keys: cookieKeys },
        scopes: ['openid', 'offline_access', ...boardScopes],
        responseTypes: ['code'],
        pkce: { required: () => true },
        clientBasedCORS: () => true,
        features: {
            devInteractions: { enabled: false },
            registration: { enabled: true },
            resourceIndicators: {
                enabled: true,
                defaultResource: async (_ctx, _client, oneOf) => oneOf,
                useGrantedResource: async () => true,
                getResourceServerInfo: async (_ctx, resource) => {
                    if (!/^https?:$/.test(new URL(resource).protocol)) throw new errors.InvalidTarget();
                    return {
                        scope: boardScopes.join(' '),
                        audience: resource,
                        accessTokenTTL: accessTokenTtl,
                        accessTokenFormat: 'jwt',
                        jwt: { sign: { alg: options.alg } },
                    };
                },
            },
        },
        issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
        findAccount: async (_ctx, id) => (id === account ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
        interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}`, policy: policy() },
        renderError: async (ctx, out) => {
            ctx.type = 'json';
            ctx.body = out;
        },
        ttl: {
            AccessToken: accessTokenTtl,
            AuthorizationCode: 60,
            IdToken: 3600,
            Interaction: 3600,
            Grant: 86400,
            RefreshToken: 86400,
            Session: 86400,
        },
    };
    const instance = new Provider(issuer, config);
    instance.on('registration_create.success', (_ctx, client) => {
        events.push({ event: 'registration', client_id: client.clientId });
    });
    instance.on('grant.success', (ctx) => {
        const { header, payload } = decoded(ctx.body.access_token);
        events.push({
            event: 'token',
            grant_type: ctx.oidc.params.grant_type,
            client_id: ctx.oidc.client.clientId,
            scope: ctx.body.scope ?? null,
            aud: payload.aud,
            kid: header.kid,
            alg: header.alg,
            refresh_token: Boolean(ctx.body.refresh_token),
        });
    });
    return { instance, handle: instance.callback() };
}

let keys = newKeys();
writeKeys(keys);
let current;

/** The JSON body of a request. */
async function body(req) {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : {};
}

function json(res, status, value) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
}

/** GET /interaction/UID: which prompt this is and what was asked for. */
async function describe(req, res) {
    const { uid, prompt, params } = await current.instance.interactionDetails(req, res);
    json(res, 200, {
        uid,
        prompt: prompt.name,
        reasons: prompt.reasons,
        client_id: params.client_id,
        scopes: (params.scope ?? '').split(' ').filter(Boolean),
        resource: [params.resource ?? []].flat(),
        missing: prompt.details.missingResourceScopes ?? {},
    });
}

/** POST /interaction/UID/login: signs alice in. */
async function login(req, res) {
    const { prompt } = await current.instance.interactionDetails(req, res);
    const { login: name, password } = await body(req);
    if (prompt.name !== 'login') return json(res, 400, { error: `the prompt is ${prompt.name}` });
    if (name !== account || password !== options.password) return json(res, 401, { error: 'wrong login or password' });
    events.push({ event: 'login', account });
    await current.instance.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
}

/** POST /interaction/UID/consent: a new grant of the scopes named, the others asked for refused. */
async function consent(req, res) {
    const { prompt, params, session } = await current.instance.interactionDetails(req, res);
    const { scopes: granted = [] } = await body(req);
    if (prompt.name !== 'consent') return json(res, 400, { error: `the prompt is ${prompt.name}` });
    const asked = (params.scope ?? '').split(' ').filter(Boolean);
    const grant = new current.instance.Grant({ accountId: session.accountId, clientId: params.client_id });
    const given = asked.filter((scope) => boardScopes.includes(scope) && granted.includes(scope));
    const refused = asked.filter((scope) => boardScopes.includes(scope) && !granted.includes(scope));
    // The board's scopes are the issuer's too (a client may register with them): granted or
    // refused alike for the issuer and for each resource; openid and offline_access as asked.
    const oidcScopes = [...asked.filter((scope) => !boardScopes.includes(scope)), ...given];
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    if (refused.length) grant.rejectOIDCScope(refused.join(' '));
    for (const resource of [params.resource ?? []].flat()) {
        if (given.length) grant.addResourceScope(resource, given.join(' '));
        if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    }
    const grantId = await grant.save();
    events.push({ event: 'consent', client_id: params.client_id, granted: given, refused });
    await current.instance.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** POST /test/rotate: new keys, in a new provider over the same store. */
function rotate(_req, res) {
    keys = newKeys();
    writeKeys(keys);
    current = provider(keys);
    events.push({ event: 'rotate', kids: keys.map(({ kid }) => kid) });
    json(res, 200, { kids: keys.map(({ kid }) => kid) });
}

const routes = [
    ['GET', /^\/interaction\/[^/]+$/, describe],
    ['POST', /^\/interaction\/[^/]+\/login$/, login],
    ['POST', /^\/interaction\/[^/]+\/consent$/, consent],
    ['POST', /^\/test\/rotate$/, rotate],
    ['GET', /^\/test\/log$/, (_req, res) => json(res, 200, { events })],
];

const server = createServer(async (req, res) => {
    const path = new URL(req.url, issuer).pathname;
    // RFC 8414's address of the metadata, beside OpenID Connect's: the same document.
    if (path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
    // Each fetch of the key set, for a test to count how often a resource server refetches it.
    if (path === '/jwks') events.push({ event: 'jwks' });
    const route = routes.find(([method, pattern]) => method === req.method && pattern.test(path));
    if (!route) return current.handle(req, res);
    try {
        await route[2](req, res);
    } catch (error) {
        json(res, error.statusCode ?? 500, { error: error.name, error_description: error.message });
    }
});
server.listen(Number(port), '127.0.0.1', () => {
    const { port: bound } = server.address();
    issuer = `http://127.0.0.1:${bound}`;
    current = provider(keys);
    const file = join(stateDir, 'port');
    writeFileSync(`${file}.tmp`, String(bound));
    renameSync(`${file}.tmp`, file);
});
