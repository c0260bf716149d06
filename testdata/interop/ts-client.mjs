#!/usr/bin/env node
// Interop test client built on the official MCP TypeScript SDK v2
// (@modelcontextprotocol/client 2.4.0): pinned to protocol revision 2026-07-28 (--mode pin,
// the default), or a 2025-era client (--mode legacy: the SDK's default, no version
// negotiation, a plain initialize handshake at 2025-11-25).
//
// Usage:
//   node ts-client.mjs [options] http://127.0.0.1:PORT/mcp
//   node ts-client.mjs [options] -- <command> [args...]     (stdio: spawns the server)
//   node ts-client.mjs [options] <command> [args...]         (stdio, when <command> is not a URL)
//
// Options:
//   --timeout MS        per-request timeout (default 15000)
//   --overall MS        watchdog for the whole run (default 120000); on expiry prints the
//                       partial summary and exits 3
//   --only a,b,c        run only these checks (connect always runs)
//   --skip a,b,c        skip these checks
//   --mode pin|auto|legacy   version negotiation mode (default pin = { pin: '2026-07-28' });
//                       legacy leaves versionNegotiation unset (the SDK default): initialize at
//                       2025-11-25, sessions, server->client requests and ordinary notifications
//   --trace             log every JSON-RPC message (and on HTTP every request's headers)
//                       as JSON lines on stderr, prefixed "TRACE "
//   --env K=V           extra environment variable for the spawned stdio server (repeatable;
//                       the SDK passes only HOME/LOGNAME/PATH/SHELL/TERM/USER by default)
//   --inherit-env       pass this process's whole environment to the stdio server
//   --server-stderr inherit|ignore   stdio server's stderr (default inherit; the probe sibling's
//                       stderr is always discarded by the SDK)
//
// Output: a JSON summary on stdout ({ ok, checks: [...], ... }); human-readable progress on
// stderr. Exit code 0 = all non-skipped checks passed, 1 = a check failed, 2 = usage error,
// 3 = overall watchdog fired.
//
// Server contract expected by the default checks (see REPORT.md): tools echo, add,
// fail, progress, slow, stats (optional), header_echo, ask_name, sample, list_roots,
// multi_round, add_tool, touch_resource (optional); prompts greet,
// confirm_prompt; resource test://static; template test://items/{id}; completions
// for prompt greet/name and template test://items/{id}/id.
//
// In legacy mode the modern-only checks (server/discover, Mcp-Param headers, subscriptions/listen)
// are reported as skipped; the elicitation/sampling/roots checks then expect real server->client
// requests (seen on the wire), and the legacy additions are: the test_input_required_result_*
// tools and prompt, ping, logging/setLevel + notifications/message, resources/subscribe +
// notifications/resources/updated, resources/unsubscribe, notifications/tools/list_changed and
// notifications/prompts/list_changed as ordinary notifications, SEP-1699 stream polling
// (test_reconnection), and on HTTP the session (Mcp-Session-Id, GET stream, DELETE).
import process from 'node:process';

import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as z from 'zod';

const PROTOCOL_VERSION = '2026-07-28';
const LEGACY_PROTOCOL_VERSION = '2025-11-25';

// Values the client-side input handlers return; the server is expected to echo them.
const ELICIT_STRING = 'Interop';
const SAMPLING_REPLY = 'interop-sample-reply';
const SAMPLING_MODEL = 'interop-model';
const ROOT_URI = 'file:///tmp/interop-root';

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------
function usage(msg) {
    if (msg) process.stderr.write(`ts-client: ${msg}\n`);
    process.stderr.write(
        'usage: ts-client.mjs [--timeout MS] [--overall MS] [--only a,b] [--skip a,b] [--mode pin|auto|legacy] [--trace]\n' +
            '                     [--env K=V]... [--inherit-env] [--server-stderr inherit|ignore]\n' +
            '                     (http(s)://URL | [--] command [args...])\n'
    );
    process.exit(2);
}

function parseArgs(argv) {
    const o = { timeout: 15_000, overall: 120_000, only: undefined, skip: new Set(), mode: 'pin', trace: false, env: {}, inheritEnv: false, serverStderr: 'inherit' };
    let i = 0;
    for (; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--') {
            i++;
            break;
        }
        if (!a.startsWith('--')) break;
        const val = () => {
            if (i + 1 >= argv.length) usage(`${a} needs a value`);
            return argv[++i];
        };
        switch (a) {
            case '--timeout':
                o.timeout = Number(val());
                break;
            case '--overall':
                o.overall = Number(val());
                break;
            case '--only':
                o.only = new Set(val().split(',').filter(Boolean));
                break;
            case '--skip':
                for (const s of val().split(',').filter(Boolean)) o.skip.add(s);
                break;
            case '--mode':
                o.mode = val();
                if (o.mode !== 'pin' && o.mode !== 'auto' && o.mode !== 'legacy') usage('--mode must be pin, auto or legacy');
                break;
            case '--trace':
                o.trace = true;
                break;
            case '--env': {
                const kv = val();
                const eq = kv.indexOf('=');
                if (eq <= 0) usage('--env expects K=V');
                o.env[kv.slice(0, eq)] = kv.slice(eq + 1);
                break;
            }
            case '--inherit-env':
                o.inheritEnv = true;
                break;
            case '--server-stderr':
                o.serverStderr = val();
                if (o.serverStderr !== 'inherit' && o.serverStderr !== 'ignore') usage('--server-stderr must be inherit or ignore');
                break;
            case '--help':
                usage();
                break;
            default:
                usage(`unknown option ${a}`);
        }
    }
    const rest = argv.slice(i);
    if (rest.length === 0) usage('missing target');
    if (/^https?:\/\//.test(rest[0])) {
        if (rest.length > 1) usage('extra arguments after URL');
        o.target = { kind: 'http', url: rest[0] };
    } else {
        o.target = { kind: 'stdio', command: rest[0], args: rest.slice(1) };
    }
    return o;
}

const opts = parseArgs(process.argv.slice(2));
const LEGACY = opts.mode === 'legacy';
const log = msg => process.stderr.write(`[ts-client] ${msg}\n`);
const trace = obj => opts.trace && process.stderr.write(`TRACE ${JSON.stringify(obj)}\n`);

// ---------------------------------------------------------------------------
// Summary bookkeeping
// ---------------------------------------------------------------------------
const summary = {
    ok: false,
    sdk: '@modelcontextprotocol/client@2.4.0',
    mode: opts.mode,
    protocolVersionPinned: opts.mode === 'pin' ? PROTOCOL_VERSION : null,
    transport: opts.target.kind,
    target: opts.target.kind === 'http' ? opts.target.url : [opts.target.command, ...opts.target.args].join(' '),
    negotiatedProtocolVersion: null,
    protocolEra: null,
    serverInfo: null,
    serverCapabilities: null,
    checks: [],
    inputRequests: [], // every elicitation/sampling/roots request the client fulfilled
    notifications: [], // every notification the client saw (method + params)
    serverRequests: [], // legacy mode: every server->client JSON-RPC request seen on the wire
    errors: [] // out-of-band client.onerror reports
};

function printSummaryAndExit(code) {
    const failed = summary.checks.filter(c => !c.ok && !c.skipped);
    summary.ok = code === 0 && failed.length === 0;
    summary.passed = summary.checks.filter(c => c.ok && !c.skipped).length;
    summary.failed = failed.length;
    summary.skipped = summary.checks.filter(c => c.skipped).length;
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    process.stderr.write(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`);
    process.exit(code !== 0 ? code : failed.length > 0 ? 1 : 0);
}

const watchdog = setTimeout(() => {
    log(`overall watchdog fired after ${opts.overall}ms`);
    summary.checks.push({ name: 'watchdog', ok: false, error: `overall timeout ${opts.overall}ms exceeded` });
    printSummaryAndExit(3);
}, opts.overall);
watchdog.unref();

function describeError(e) {
    if (e instanceof ProtocolError) return { type: 'ProtocolError', code: e.code, message: e.message, data: e.data };
    if (e instanceof SdkError) return { type: 'SdkError', code: e.code, message: e.message, data: e.data };
    if (e instanceof Error) return { type: e.name, message: e.message };
    return { type: typeof e, message: String(e) };
}

function wanted(name) {
    if (name === 'connect') return true; // everything else depends on it
    if (opts.skip.has(name)) return false;
    if (opts.only && !opts.only.has(name)) return false;
    return true;
}

/** Run one named check; `fn` returns a detail object or throws. */
async function check(name, fn) {
    if (!wanted(name)) {
        summary.checks.push({ name, ok: true, skipped: true });
        return undefined;
    }
    const t0 = Date.now();
    try {
        const detail = await fn();
        summary.checks.push({ name, ok: true, ms: Date.now() - t0, detail });
        log(`PASS ${name} (${Date.now() - t0}ms)`);
        return detail;
    } catch (e) {
        summary.checks.push({ name, ok: false, ms: Date.now() - t0, error: describeError(e) });
        log(`FAIL ${name}: ${e?.message ?? e}`);
        return undefined;
    }
}

/** Record a check that does not apply to this mode. */
function notApplicable(name, reason) {
    summary.checks.push({ name, ok: true, skipped: true, reason });
    log(`SKIP ${name}: ${reason}`);
}

function assert(cond, msg) {
    if (!cond) throw new Error(`assertion failed: ${msg}`);
}

const textOf = result => (result?.content ?? []).filter(b => b.type === 'text').map(b => b.text).join('\n');

function withTimeout(promise, ms, what) {
    let timer;
    return Promise.race([
        promise,
        new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms waiting for ${what}`)), ms);
        })
    ]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------
// Transport (with optional tracing)
// ---------------------------------------------------------------------------
function tracingFetch(input, init) {
    const headers = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    trace({ http: 'request', method: init?.method ?? 'GET', url: String(input), headers, body: init?.body });
    return fetch(input, init).then(res => {
        const rh = {};
        res.headers.forEach((v, k) => (rh[k] = v));
        trace({ http: 'response', status: res.status, headers: rh });
        return res;
    });
}

// Legacy mode on HTTP: every exchange's session-relevant headers and, for SSE responses, the
// event ids read so far (the body is teed), for the http:* checks.
const httpLog = [];

/** Collect the `id:` fields of an SSE body into `ids` as they arrive. */
async function collectEventIds(body, ids) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
        for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            buf += value;
            const lines = buf.split(/\r\n|\r|\n/);
            buf = lines.pop();
            for (const line of lines) if (line.startsWith('id:')) ids.push(line.slice(3).trim());
        }
    } catch {
        // the connection was aborted: what was read stays
    }
}

function recordingFetch(input, init) {
    const sent = new Headers(init?.headers);
    let body;
    try {
        body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    } catch {
        body = undefined;
    }
    const entry = {
        method: init?.method ?? 'GET',
        t: Date.now(),
        rpc: body?.method ?? (body && 'id' in body ? 'response' : undefined),
        rpcId: body?.id,
        sessionIdSent: sent.get('mcp-session-id'),
        protocolVersionSent: sent.get('mcp-protocol-version'),
        lastEventIdSent: sent.get('last-event-id'),
        mcpParamHeaders: [...sent.keys()].filter(k => k.startsWith('mcp-param-'))
    };
    httpLog.push(entry);
    return (opts.trace ? tracingFetch : fetch)(input, init).then(res => {
        entry.status = res.status;
        entry.contentType = res.headers.get('content-type');
        entry.sessionIdReceived = res.headers.get('mcp-session-id');
        if (res.body && String(entry.contentType).startsWith('text/event-stream')) {
            const [mine, theirs] = res.body.tee();
            entry.eventIds = [];
            void collectEventIds(mine, entry.eventIds);
            return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
        }
        return res;
    });
}

function buildTransport() {
    if (opts.target.kind === 'http') {
        if (LEGACY) return new StreamableHTTPClientTransport(new URL(opts.target.url), { fetch: recordingFetch });
        return new StreamableHTTPClientTransport(new URL(opts.target.url), opts.trace ? { fetch: tracingFetch } : undefined);
    }
    const env = opts.inheritEnv ? { ...process.env, ...opts.env } : opts.env;
    return new StdioClientTransport({
        command: opts.target.command,
        args: opts.target.args,
        env,
        stderr: opts.serverStderr
    });
}

let cancelledCallId; // legacy mode on HTTP: the JSON-RPC id of the cancelled slow call
// Every JSON-RPC message sent and received, in order (method, id, progress fields); legacy mode only.
const wire = [];
const wireErrors = []; // legacy mode: the error objects of every JSON-RPC error response received

/**
 * Wrap send/onmessage to trace JSON-RPC traffic, and in legacy mode record every
 * server->client request (a message with both method and id). Must run before connect().
 */
function instrument(transport) {
    if (!opts.trace && !LEGACY) return;
    const origSend = transport.send.bind(transport);
    transport.send = (msg, o) => {
        trace({ dir: 'send', msg });
        if (LEGACY) wire.push({ dir: 'send', method: msg?.method, id: msg?.id, progressToken: msg?.params?._meta?.progressToken });
        return origSend(msg, o);
    };
    // Protocol.connect() chains onto a pre-set onmessage, so this sees every inbound message.
    transport.onmessage = msg => {
        trace({ dir: 'recv', msg });
        if (LEGACY) wire.push({ dir: 'recv', method: msg?.method, id: msg?.id, progressToken: msg?.params?.progressToken, progress: msg?.params?.progress, total: msg?.params?.total });
        if (LEGACY && typeof msg?.method === 'string' && msg.id !== undefined) summary.serverRequests.push({ method: msg.method, id: msg.id });
        if (LEGACY && msg?.error !== undefined) wireErrors.push(msg.error);
    };
}

// ---------------------------------------------------------------------------
// Client + input handlers (elicitation / sampling / roots)
// ---------------------------------------------------------------------------
const client = new Client(
    { name: 'ts-interop-client', version: '2.4.0-interop' },
    {
        capabilities: {
            elicitation: { form: {} },
            sampling: {},
            roots: {}
        },
        // legacy: versionNegotiation left unset, the SDK's default ('legacy').
        ...(LEGACY
            ? {}
            : {
                  versionNegotiation: {
                      mode: opts.mode === 'pin' ? { pin: PROTOCOL_VERSION } : 'auto',
                      probe: { timeoutMs: opts.timeout }
                  }
              }),
        inputRequired: { autoFulfill: true, maxRounds: 5 }
    }
);

client.onerror = err => {
    summary.errors.push(describeError(err));
    log(`onerror: ${err?.message ?? err}`);
};

/** Build an accepted form response from the requested schema: defaults, strings -> ELICIT_STRING, etc. */
function fillForm(schema) {
    const content = {};
    for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
        const items = prop.items ?? {};
        if (prop.default !== undefined) content[key] = prop.default;
        else if (prop.type === 'array' && Array.isArray(items.enum) && items.enum.length > 0) content[key] = [items.enum[0]];
        else if (prop.type === 'array' && items.anyOf?.[0]?.const !== undefined) content[key] = [items.anyOf[0].const];
        else if (Array.isArray(prop.enum) && prop.enum.length > 0) content[key] = prop.enum[0];
        else if (Array.isArray(prop.oneOf) && prop.oneOf[0]?.const !== undefined) content[key] = prop.oneOf[0].const;
        else if (prop.type === 'number' || prop.type === 'integer') content[key] = 42;
        else if (prop.type === 'boolean') content[key] = true;
        else if (prop.type === 'array') content[key] = [];
        else content[key] = ELICIT_STRING;
    }
    return content;
}

client.setRequestHandler('elicitation/create', async request => {
    summary.inputRequests.push({ method: 'elicitation/create', params: request.params });
    if (request.params.mode === 'url') return { action: 'decline' };
    return { action: 'accept', content: fillForm(request.params.requestedSchema) };
});

client.setRequestHandler('sampling/createMessage', async request => {
    summary.inputRequests.push({ method: 'sampling/createMessage', params: request.params });
    return { role: 'assistant', model: SAMPLING_MODEL, stopReason: 'endTurn', content: { type: 'text', text: SAMPLING_REPLY } };
});

client.setRequestHandler('roots/list', async request => {
    summary.inputRequests.push({ method: 'roots/list', params: request.params ?? null });
    return { roots: [{ uri: ROOT_URI, name: 'interop-root' }] };
});

// Change notifications delivered on a subscriptions/listen stream are dispatched to
// ordinary notification handlers (the same ones a 2025-era connection would use).
const seen = { toolsListChanged: 0, promptsListChanged: 0, resourcesListChanged: 0, resourceUpdated: [] };
const waiters = [];
function onNote(kind, params) {
    summary.notifications.push({ method: kind, params });
    for (const w of [...waiters]) if (w.kind === kind) w.resolve(params);
}
function waitForNote(kind, ms) {
    return withTimeout(new Promise(resolve => waiters.push({ kind, resolve })), ms, kind);
}
client.setNotificationHandler('notifications/tools/list_changed', n => {
    seen.toolsListChanged++;
    onNote('notifications/tools/list_changed', n.params);
});
client.setNotificationHandler('notifications/prompts/list_changed', n => {
    seen.promptsListChanged++;
    onNote('notifications/prompts/list_changed', n.params);
});
client.setNotificationHandler('notifications/resources/list_changed', n => {
    seen.resourcesListChanged++;
    onNote('notifications/resources/list_changed', n.params);
});
client.setNotificationHandler('notifications/resources/updated', n => {
    seen.resourceUpdated.push(n.params?.uri);
    onNote('notifications/resources/updated', n.params);
});
if (LEGACY) {
    client.setNotificationHandler('notifications/message', n => onNote('notifications/message', n.params));
}

// ---------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------
const T = { timeout: opts.timeout };

// The input checks (elicitation, sampling, roots through the client's handlers): multi round-trip
// results on 2026-07-28, real server->client requests on a 2025-11-25 session.
const INPUT = LEGACY ? 'server-request' : 'mrtr';

/**
 * The progress call sent since index `from` of the wire log got `steps` notifications/progress
 * for its token, increasing to steps/steps, all before its response. Judged on the wire: the SDK
 * runs notification handlers a microtask late but drops a request's progress handler as soon as
 * its response is read, so updates read in the same chunk as the response miss onprogress (it
 * reports "progress notification for an unknown token" to onerror).
 */
function assertProgressOnWire(from, steps) {
    const log = wire.slice(from);
    const call = log.find(m => m.dir === 'send' && m.method === 'tools/call' && m.progressToken !== undefined);
    assert(call, 'the call carried a progressToken');
    const answer = log.findIndex(m => m.dir === 'recv' && m.method === undefined && m.id === call.id);
    assert(answer >= 0, 'the response was read');
    const notes = log.filter((m, i) => m.dir === 'recv' && m.method === 'notifications/progress' && m.progressToken === call.progressToken && i < answer);
    const late = log.filter((m, i) => m.dir === 'recv' && m.method === 'notifications/progress' && m.progressToken === call.progressToken && i > answer);
    assert(late.length === 0, `no progress after the response: ${JSON.stringify(late)}`);
    assert(notes.length === steps, `${steps} notifications/progress before the response: ${JSON.stringify(notes)}`);
    for (let i = 0; i < steps; i++) assert(notes[i].progress === i + 1 && notes[i].total === steps, `progress ${i + 1}/${steps}: ${JSON.stringify(notes[i])}`);
    return notes.map(n => ({ progress: n.progress, total: n.total }));
}

/** Legacy mode: the server sent these requests (in this order) since index `from` of the wire log. */
function assertServerRequests(from, methods) {
    if (!LEGACY) return;
    const got = summary.serverRequests.slice(from).map(x => x.method);
    assert(JSON.stringify(got) === JSON.stringify(methods), `server->client requests on the wire: expected ${methods.join(',')}, got ${got.join(',') || 'none'}`);
}

/** Legacy mode: call `tool`, expect its inputs as server->client requests and `want` in the result text. */
async function legacyInputTool(tool, methods, want, args = {}) {
    await check(`server-request:${tool}`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.callTool({ name: tool, arguments: args }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(JSON.stringify(fulfilled) === JSON.stringify(methods), `handlers invoked: expected ${methods.join(',')}, got ${fulfilled.join(',') || 'none'}`);
        assertServerRequests(wireBefore, methods);
        assert(!r.isError, `not isError: ${textOf(r)}`);
        for (const w of want) assert(textOf(r).includes(w), `result mentions ${w}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r) };
    });
}

async function main() {
    const transport = buildTransport();
    instrument(transport);

    // connect(): pin/auto probe with server/discover (on stdio: on a short-lived sibling process
    // that is then killed, then spawns the real server) and adopt the DiscoverResult; legacy
    // sends initialize (protocolVersion 2025-11-25) and notifications/initialized.
    const connected = await check('connect', async () => {
        await client.connect(transport, T);
        summary.negotiatedProtocolVersion = client.getNegotiatedProtocolVersion() ?? null;
        summary.protocolEra = client.getProtocolEra() ?? null;
        summary.serverInfo = client.getServerVersion() ?? null;
        summary.serverCapabilities = client.getServerCapabilities() ?? null;
        if (opts.mode === 'pin') assert(summary.negotiatedProtocolVersion === PROTOCOL_VERSION, `negotiated ${summary.negotiatedProtocolVersion}`);
        if (LEGACY) {
            assert(summary.negotiatedProtocolVersion === LEGACY_PROTOCOL_VERSION, `negotiated ${summary.negotiatedProtocolVersion}`);
            assert(summary.protocolEra === 'legacy', `era ${summary.protocolEra}`);
            assert(summary.serverInfo?.name === 'mcp-everything', `serverInfo ${JSON.stringify(summary.serverInfo)}`);
        }
        return {
            negotiatedProtocolVersion: summary.negotiatedProtocolVersion,
            era: summary.protocolEra,
            serverInfo: summary.serverInfo,
            instructions: client.getInstructions() ?? null,
            discover: client.getDiscoverResult() ?? null
        };
    });
    if (connected === undefined) return;

    if (LEGACY) notApplicable('server/discover', 'modern-only (2026-07-28)');
    else
        await check('server/discover', async () => {
            const r = await client.discover(T);
            assert(Array.isArray(r.supportedVersions) && r.supportedVersions.includes(PROTOCOL_VERSION), 'supportedVersions includes 2026-07-28');
            assert(typeof r.capabilities === 'object', 'capabilities present');
            return { supportedVersions: r.supportedVersions, capabilities: r.capabilities, ttlMs: r.ttlMs, cacheScope: r.cacheScope, _meta: r._meta };
        });

    let toolNames = [];
    await check('tools/list', async () => {
        const r = await client.listTools(undefined, { ...T, cacheMode: 'refresh' });
        toolNames = r.tools.map(t => t.name);
        assert(toolNames.length > 0, 'at least one tool');
        return { tools: toolNames, ttlMs: r.ttlMs, cacheScope: r.cacheScope };
    });

    await check('tools/call:echo', async () => {
        const r = await client.callTool({ name: 'echo', arguments: { message: 'hello-interop' } }, T);
        assert(!r.isError, 'not isError');
        assert(textOf(r).includes('hello-interop'), `text contains hello-interop: ${textOf(r)}`);
        return { text: textOf(r) };
    });

    await check('tools/call:add', async () => {
        // listTools above cached the tool definitions, so the SDK validates
        // structuredContent against the tool's outputSchema here.
        const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, T);
        assert(r.structuredContent?.sum === 5, `structuredContent.sum === 5: ${JSON.stringify(r.structuredContent)}`);
        return { structuredContent: r.structuredContent, text: textOf(r) };
    });

    await check('tools/call:fail', async () => {
        const r = await client.callTool({ name: 'fail', arguments: {} }, T);
        assert(r.isError === true, 'isError true');
        return { text: textOf(r) };
    });

    await check('tools/call:unknown-tool', async () => {
        try {
            const r = await client.callTool({ name: 'no_such_tool_xyz', arguments: {} }, T);
            // The spec allows a tool-level error too.
            assert(r.isError === true, 'isError result or -32602 error');
            return { isError: true, text: textOf(r) };
        } catch (e) {
            assert(e instanceof ProtocolError && e.code === -32602, `expected ProtocolError -32602, got ${JSON.stringify(describeError(e))}`);
            return { error: describeError(e) };
        }
    });

    await check('tools/call:progress', async () => {
        const wireFrom = wire.length;
        const updates = [];
        const r = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { ...T, onprogress: p => updates.push(p) });
        if (!LEGACY) assert(updates.length >= 1, `received progress notifications (got ${updates.length})`);
        for (let i = 1; i < updates.length; i++) assert(updates[i].progress > updates[i - 1].progress, 'progress increases');
        if (LEGACY) return { progress: updates, onWire: assertProgressOnWire(wireFrom, 3), text: textOf(r) };
        return { progress: updates, text: textOf(r) };
    });

    if (LEGACY) {
        notApplicable('tools/call:mcp-param-header', 'Mcp-Param headers are 2026-07-28 only');
        await check('tools/call:header_echo', async () => {
            // A 2025-11-25 session has no Mcp-Param headers: the x-mcp-header argument travels in the body only.
            const before = httpLog.length;
            const r = await client.callTool({ name: 'header_echo', arguments: { region: 'Hello, 世界' } }, T);
            assert(!r.isError, `not isError: ${textOf(r)}`);
            assert(textOf(r).includes('Hello, 世界'), `echoes region: ${textOf(r)}`);
            return { text: textOf(r), mcpParamHeadersSent: httpLog.slice(before).flatMap(e => e.mcpParamHeaders) };
        });
    } else {
        await check('tools/call:mcp-param-header', async () => {
            // tools/list above cached header_echo's inputSchema, whose `region` property carries
            // x-mcp-header: "Region"; on HTTP the SDK mirrors it into Mcp-Param-Region (non-ASCII
            // values as =?base64?...?=). On stdio headers do not exist and the check is a plain call.
            const out = {};
            for (const region of ['us-west1', 'Hello, 世界']) {
                const r = await client.callTool({ name: 'header_echo', arguments: { region } }, T);
                assert(!r.isError, `not isError: ${textOf(r)}`);
                assert(textOf(r).includes(region), `echoes region ${region}: ${textOf(r)}`);
                out[region] = textOf(r);
            }
            return out;
        });
    }

    await check('cancel', async () => {
        // HTTP: aborting closes the request's SSE/HTTP response (no notifications/cancelled POST).
        // stdio: the SDK writes notifications/cancelled {requestId} to the server.
        // legacy: notifications/cancelled {requestId} on every transport (on HTTP as a POST).
        const ac = new AbortController();
        const t0 = Date.now();
        const sentBefore = httpLog.length;
        const p = client.callTool({ name: 'slow', arguments: { ms: 20_000 } }, { ...T, timeout: 30_000, signal: ac.signal });
        setTimeout(() => ac.abort('interop-cancel'), 300);
        let err;
        try {
            await p;
        } catch (e) {
            err = e;
        }
        assert(err !== undefined, 'call rejected after abort');
        assert(Date.now() - t0 < 10_000, 'rejected promptly');
        let serverSaw = null;
        if (toolNames.includes('stats')) {
            // Give the server a moment to observe the cancellation, then ask it.
            for (let i = 0; i < 20; i++) {
                await new Promise(r => setTimeout(r, 100));
                const st = await client.callTool({ name: 'stats', arguments: {} }, T);
                serverSaw = st.structuredContent ?? JSON.parse(textOf(st));
                if (serverSaw.slowCancelled >= 1) break;
            }
            assert(serverSaw.slowCancelled >= 1, `server observed the cancellation: ${JSON.stringify(serverSaw)}`);
        }
        if (LEGACY) cancelledCallId = httpLog.slice(sentBefore).find(e => e.rpc === 'tools/call')?.rpcId;
        return { error: describeError(err), serverStats: serverSaw };
    });

    await check('unknown-method', async () => {
        // Not a spec method, so a result schema must be supplied. The server should answer -32601
        // (on HTTP with status 404 - which the SDK surfaces as SdkHttpError, not ProtocolError).
        try {
            await client.request({ method: 'interop/no-such-method', params: {} }, z.object({}).passthrough(), T);
        } catch (e) {
            const d = describeError(e);
            const isProtocol = e instanceof ProtocolError && e.code === -32601;
            const isHttp404 = e instanceof SdkError && e.data?.status === 404 && String(e.data?.text ?? '').includes('-32601');
            assert(isProtocol || isHttp404, `expected -32601 (or HTTP 404 carrying it), got ${JSON.stringify(d)}`);
            return { error: d };
        }
        throw new Error('expected an error');
    });

    await check(`${INPUT}:elicitation`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.callTool({ name: 'ask_name', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('elicitation/create'), 'elicitation handler was invoked');
        assertServerRequests(wireBefore, ['elicitation/create']);
        assert(textOf(r).includes(ELICIT_STRING), `result mentions ${ELICIT_STRING}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r), structuredContent: r.structuredContent };
    });

    await check(`${INPUT}:sampling`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('sampling/createMessage'), 'sampling handler was invoked');
        assertServerRequests(wireBefore, ['sampling/createMessage']);
        assert(textOf(r).includes(SAMPLING_REPLY), `result mentions ${SAMPLING_REPLY}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r) };
    });

    await check(`${INPUT}:roots`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.callTool({ name: 'list_roots', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('roots/list'), 'roots handler was invoked');
        assertServerRequests(wireBefore, ['roots/list']);
        assert(textOf(r).includes(ROOT_URI), `result mentions ${ROOT_URI}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r) };
    });

    await check(`${INPUT}:multi_round`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.callTool({ name: 'multi_round', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.length >= 3, `three input requests over two rounds (got ${fulfilled.join(',')})`);
        assertServerRequests(wireBefore, ['elicitation/create', 'sampling/createMessage', 'roots/list']);
        const t = textOf(r);
        assert(t.includes(ELICIT_STRING) && t.includes(SAMPLING_REPLY) && t.includes(ROOT_URI), `combined result: ${t}`);
        return { fulfilled, text: t };
    });

    if (LEGACY) {
        // The conformance suite's multi round-trip tools, which on a 2025-11-25 session ask
        // through real requests and resume with the answers.
        const EL = 'elicitation/create', SA = 'sampling/createMessage', RO = 'roots/list';
        await legacyInputTool('test_input_required_result_elicitation', [EL], [`Hello, ${ELICIT_STRING}!`]);
        await legacyInputTool('test_input_required_result_sampling', [SA], [SAMPLING_REPLY]);
        await legacyInputTool('test_input_required_result_list_roots', [RO], [ROOT_URI]);
        await legacyInputTool('test_input_required_result_request_state', [EL], ['state-ok: awaiting-confirmation', 'action accept']);
        await legacyInputTool('test_input_required_result_multiple_inputs', [EL, SA, RO], [`name=${ELICIT_STRING}`, SAMPLING_REPLY, ROOT_URI]);
        await legacyInputTool('test_input_required_result_multi_round', [EL, EL], [`name=${ELICIT_STRING}; color=${ELICIT_STRING}`]);
        await legacyInputTool('test_input_required_result_tampered_state', [EL], ['confirmed: accept']);
        await legacyInputTool('test_input_required_result_capabilities', [EL, SA, RO], ['all declared inputs answered']);
        await legacyInputTool('test_sampling', [SA], [`LLM response: ${SAMPLING_REPLY}`], { prompt: 'Say hi' });
        await legacyInputTool('test_elicitation', [EL], ['action=accept', `"username":"${ELICIT_STRING}"`], { message: 'Who are you?' });
        await legacyInputTool('test_elicitation_sep1034_defaults', [EL], ['action=accept', '"name":"John Doe"', '"age":30', '"status":"active"']);
        await legacyInputTool('test_elicitation_sep1330_enums', [EL], ['action=accept', '"untitledSingle":"option1"', '"titledMulti":["value1"]']);
    }

    await check('prompts/list', async () => {
        const r = await client.listPrompts(undefined, { ...T, cacheMode: 'refresh' });
        const names = r.prompts.map(p => p.name);
        assert(names.includes('greet'), `greet listed: ${names}`);
        return { prompts: r.prompts.map(p => ({ name: p.name, arguments: p.arguments })) };
    });

    await check('prompts/get', async () => {
        const r = await client.getPrompt({ name: 'greet', arguments: { name: 'alice' } }, T);
        assert(r.messages.length > 0, 'has messages');
        const t = r.messages.map(m => m.content?.text ?? '').join('\n');
        assert(t.includes('alice'), `message mentions alice: ${t}`);
        return { description: r.description, messages: r.messages };
    });

    await check(`${INPUT}:prompts/get`, async () => {
        const before = summary.inputRequests.length;
        const wireBefore = summary.serverRequests.length;
        const r = await client.getPrompt({ name: 'confirm_prompt', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('elicitation/create'), 'elicitation handler invoked for prompts/get');
        assertServerRequests(wireBefore, ['elicitation/create']);
        const t = r.messages.map(m => m.content?.text ?? '').join('\n');
        assert(t.includes(ELICIT_STRING), `prompt text mentions ${ELICIT_STRING}: ${t}`);
        return { fulfilled, messages: r.messages };
    });

    if (LEGACY) {
        await check('server-request:test_input_required_result_prompt', async () => {
            const before = summary.inputRequests.length;
            const wireBefore = summary.serverRequests.length;
            const r = await client.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} }, T);
            const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
            assert(fulfilled.includes('elicitation/create'), 'elicitation handler invoked for prompts/get');
            assertServerRequests(wireBefore, ['elicitation/create']);
            const t = r.messages.map(m => m.content?.text ?? '').join('\n');
            assert(t.includes(`Use this context: ${ELICIT_STRING}`), `prompt text: ${t}`);
            return { fulfilled, messages: r.messages };
        });
    }

    await check('resources/list', async () => {
        const r = await client.listResources(undefined, { ...T, cacheMode: 'refresh' });
        const uris = r.resources.map(x => x.uri);
        assert(uris.includes('test://static'), `test://static listed: ${uris}`);
        return { resources: uris };
    });

    await check('resources/templates/list', async () => {
        const r = await client.listResourceTemplates(undefined, { ...T, cacheMode: 'refresh' });
        const templates = r.resourceTemplates.map(x => x.uriTemplate);
        assert(templates.includes('test://items/{id}'), `test://items/{id} listed: ${templates}`);
        return { resourceTemplates: templates };
    });

    await check('resources/read', async () => {
        const r = await client.readResource({ uri: 'test://static' }, { ...T, cacheMode: 'refresh' });
        assert(r.contents.length > 0 && typeof r.contents[0].text === 'string', 'text contents');
        return { contents: r.contents, ttlMs: r.ttlMs, cacheScope: r.cacheScope };
    });

    await check('resources/read:template', async () => {
        const r = await client.readResource({ uri: 'test://items/7' }, { ...T, cacheMode: 'refresh' });
        assert(r.contents.length > 0, 'contents');
        assert(r.contents[0].uri === 'test://items/7', `uri echoed: ${r.contents[0].uri}`);
        return { contents: r.contents };
    });

    await check('resources/read:not-found', async () => {
        try {
            await client.readResource({ uri: 'test://does-not-exist' }, { ...T, cacheMode: 'refresh' });
        } catch (e) {
            // 2025-11-25 names one code for an unknown resource: -32002 (Resource not found). The SDK
            // reports it as -32602 (its ResourceNotFound compatibility mapping), so the wire is checked.
            if (LEGACY) {
                const onWire = wireErrors.filter(w => w?.data?.uri === 'test://does-not-exist').pop();
                assert(onWire?.code === -32002, `expected -32002 on the wire, got ${JSON.stringify(onWire)}`);
                assert(e instanceof ProtocolError && (e.code === -32602 || e.code === -32002), `expected ProtocolError, got ${JSON.stringify(describeError(e))}`);
                return { error: describeError(e), wire: onWire };
            }
            assert(e instanceof ProtocolError && (e.code === -32602 || e.code === -32002), `expected -32602, got ${JSON.stringify(describeError(e))}`);
            return { error: describeError(e) };
        }
        throw new Error('expected an error');
    });

    await check('completion/complete:prompt', async () => {
        const r = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'al' } }, T);
        assert(r.completion.values.includes('alice'), `values include alice: ${r.completion.values}`);
        return { completion: r.completion };
    });

    await check('completion/complete:resource', async () => {
        const r = await client.complete(
            { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '4' } },
            T
        );
        assert(r.completion.values.includes('42'), `values include 42: ${r.completion.values}`);
        return { completion: r.completion };
    });

    if (LEGACY) {
        notApplicable('subscriptions/listen', 'modern-only (2026-07-28): a 2025-11-25 session gets resources/subscribe and unsolicited notifications');
        await legacyNotificationChecks(transport, toolNames);
    } else {
        await check('subscriptions/listen', async () => {
            // Opens the listen stream; resolves once notifications/subscriptions/acknowledged arrives.
            const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://static'] }, T);
            try {
                const gotTools = waitForNote('notifications/tools/list_changed', opts.timeout);
                const r = await client.callTool({ name: 'add_tool', arguments: {} }, T);
                const note = await gotTools;
                assert(note?._meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined, 'subscriptionId stamped on notification');
                // The SDK evicted its cached tools/list; a fresh list shows the new tool.
                const after = await client.listTools(undefined, T);
                const added = after.tools.map(t => t.name).filter(n => !toolNames.includes(n));
                assert(added.length > 0, `a new tool appears in tools/list (before ${toolNames.length}, after ${after.tools.length})`);

                let resourceUpdated = null;
                if (sub.honoredFilter.resourceSubscriptions?.includes('test://static') && toolNames.includes('touch_resource')) {
                    const gotUpdate = waitForNote('notifications/resources/updated', opts.timeout);
                    await client.callTool({ name: 'touch_resource', arguments: {} }, T);
                    resourceUpdated = await gotUpdate;
                    assert(resourceUpdated?.uri === 'test://static', 'resources/updated for test://static');
                }
                return { honoredFilter: sub.honoredFilter, addToolResult: textOf(r), toolsListChanged: note, added, resourceUpdated };
            } finally {
                // close(): aborts the listen request's stream AND sends notifications/cancelled
                // naming the listen id (on every transport).
                await sub.close();
                const cause = await withTimeout(sub.closed, 5000, 'subscription close');
                summary.listenClosedCause = cause;
            }
        });
    }
}

/**
 * Legacy mode: what a 2025-11-25 session has instead of subscriptions/listen — ping, logging,
 * resources/subscribe, list_changed notifications delivered unsolicited (on HTTP on the GET
 * stream or the request's stream, on stdio on the connection), SEP-1699 stream polling, and on
 * HTTP the session's headers and its termination.
 */
/** The stream part of one of this server's event ids ("<stream>-<n>"). */
const streamOf = id => (typeof id === 'string' && id.includes('-') ? id.slice(0, id.indexOf('-')) : undefined);

async function legacyNotificationChecks(transport, toolNames) {
    const http = opts.target.kind === 'http';
    const notesSince = (from, method) => summary.notifications.slice(from).filter(n => n.method === method);

    await check('ping', async () => {
        const r = await client.ping(T);
        return { result: r };
    });

    await check('logging/setLevel', async () => {
        // At warning, the tool's three info messages are filtered out; at info they all arrive
        // (on the tool call's stream) before its result.
        await client.setLoggingLevel('warning', T);
        let from = summary.notifications.length;
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} }, T);
        const filtered = notesSince(from, 'notifications/message');
        assert(filtered.length === 0, `no info messages at level warning (got ${JSON.stringify(filtered)})`);
        await client.setLoggingLevel('info', T);
        from = summary.notifications.length;
        const r = await client.callTool({ name: 'test_tool_with_logging', arguments: {} }, T);
        const msgs = notesSince(from, 'notifications/message').map(n => n.params);
        assert(msgs.length === 3, `three notifications/message (got ${JSON.stringify(msgs)})`);
        assert(msgs.every(m => m.level === 'info'), 'level info');
        assert(JSON.stringify(msgs[0].data).includes('Tool execution started'), `first message: ${JSON.stringify(msgs[0])}`);
        return { messages: msgs, text: textOf(r) };
    });

    await check('resources/subscribe', async () => {
        assert(summary.serverCapabilities?.resources?.subscribe === true, `resources.subscribe capability: ${JSON.stringify(summary.serverCapabilities?.resources)}`);
        await client.subscribeResource({ uri: 'test://static' }, T);
        const got = waitForNote('notifications/resources/updated', opts.timeout);
        const r = await client.callTool({ name: 'touch_resource', arguments: {} }, T);
        const note = await got;
        assert(note?.uri === 'test://static', `resources/updated for test://static: ${JSON.stringify(note)}`);
        return { touch: textOf(r), resourceUpdated: note };
    });

    await check('resources/unsubscribe', async () => {
        await client.unsubscribeResource({ uri: 'test://static' }, T);
        const from = summary.notifications.length;
        await client.callTool({ name: 'touch_resource', arguments: {} }, T);
        await new Promise(r => setTimeout(r, 500));
        const late = notesSince(from, 'notifications/resources/updated');
        assert(late.length === 0, `no resources/updated after unsubscribe (got ${JSON.stringify(late)})`);
        return { notificationsAfterUnsubscribe: 0 };
    });

    await check('notifications/tools/list_changed', async () => {
        assert(summary.serverCapabilities?.tools?.listChanged === true, `tools.listChanged capability: ${JSON.stringify(summary.serverCapabilities?.tools)}`);
        const got = waitForNote('notifications/tools/list_changed', opts.timeout);
        const r = await client.callTool({ name: 'add_tool', arguments: {} }, T);
        const note = await got;
        const after = await client.listTools(undefined, { ...T, cacheMode: 'refresh' });
        const added = after.tools.map(t => t.name).filter(n => !toolNames.includes(n));
        assert(added.length > 0, `a new tool appears in tools/list (before ${toolNames.length}, after ${after.tools.length})`);
        const call = await client.callTool({ name: added[added.length - 1], arguments: {} }, T);
        assert(textOf(call).includes(`${added[added.length - 1]} called`), `the new tool answers: ${textOf(call)}`);
        return { addToolResult: textOf(r), toolsListChanged: note ?? null, added, newToolResult: textOf(call) };
    });

    await check('notifications/prompts/list_changed', async () => {
        assert(summary.serverCapabilities?.prompts?.listChanged === true, `prompts.listChanged capability: ${JSON.stringify(summary.serverCapabilities?.prompts)}`);
        const got = waitForNote('notifications/prompts/list_changed', opts.timeout);
        const r = await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} }, T);
        const note = await got;
        return { result: textOf(r), promptsListChanged: note ?? null };
    });

    await check('tools/call:test_reconnection', async () => {
        // SEP-1699: on HTTP the server closes the call's SSE stream after an event with an id;
        // the client resumes with GET + Last-Event-ID and gets the result there.
        const before = httpLog.length;
        const r = await client.callTool({ name: 'test_reconnection', arguments: {} }, { ...T, timeout: Math.max(opts.timeout, 30_000) });
        assert(textOf(r).includes('Reconnection test completed successfully'), `result: ${textOf(r)}`);
        if (!http) return { text: textOf(r) };
        const post = httpLog.slice(before).find(e => e.method === 'POST' && e.rpc === 'tools/call');
        const stream = streamOf(post?.eventIds?.[0]);
        assert(stream !== undefined, `the call's SSE stream began with an event id (LSSE-4): ${JSON.stringify(post)}`);
        const resumed = httpLog.slice(before).filter(e => e.method === 'GET' && streamOf(e.lastEventIdSent) === stream);
        assert(resumed.length > 0 && resumed.at(-1).status === 200, `resumed with GET + Last-Event-ID of stream ${stream}: ${JSON.stringify(resumed)}`);
        return { text: textOf(r), stream, resumedWith: resumed.map(e => ({ lastEventId: e.lastEventIdSent, status: e.status, eventIds: e.eventIds })) };
    });

    if (!http) {
        notApplicable('http:session', 'HTTP only');
        notApplicable('http:resume-cancelled-stream', 'HTTP only');
        notApplicable('http:session-terminate', 'HTTP only');
        return;
    }

    await check('http:session', async () => {
        const init = httpLog.find(e => e.rpc === 'initialize');
        assert(init && init.status === 200, `initialize answered 200: ${JSON.stringify(init)}`);
        const sid = init.sessionIdReceived;
        assert(typeof sid === 'string' && sid.length > 0, 'initialize response carries Mcp-Session-Id');
        assert(/^[\x21-\x7e]+$/.test(sid), `session id is visible ASCII: ${sid}`);
        const later = httpLog.slice(httpLog.indexOf(init) + 1);
        const strays = later.filter(e => e.sessionIdSent !== sid || e.protocolVersionSent !== LEGACY_PROTOCOL_VERSION);
        assert(strays.length === 0, `every later request carries the session id and MCP-Protocol-Version 2025-11-25: ${JSON.stringify(strays)}`);
        // (The GETs after the first are judged by http:resume-cancelled-stream and test_reconnection.)
        const failed = later.filter(e => e.status !== undefined && e.status >= 400 && e.method !== 'GET');
        assert(failed.length === 0 || failed.every(e => e.rpc === 'interop/no-such-method'), `no HTTP errors within the session: ${JSON.stringify(failed)}`);
        const getStream = later.find(e => e.method === 'GET' && !e.lastEventIdSent);
        assert(getStream && getStream.status === 200 && String(getStream.contentType).startsWith('text/event-stream'), `GET stream opened: ${JSON.stringify(getStream)}`);
        const notes = later.filter(e => e.method === 'POST' && e.rpc?.startsWith('notifications/'));
        assert(notes.every(e => e.status === 202), `notifications answered 202: ${JSON.stringify(notes)}`);
        return { sessionId: sid, requests: later.length, getStream, notifications: notes.length };
    });

    await check('http:resume-cancelled-stream', async () => {
        // The cancelled slow call's POST stream had a priming event (LSSE-4) and was then closed
        // by the server without a response (LCAN-3), which a client cannot tell from a polling
        // close (LSSE-5): the SDK resumes it with GET + Last-Event-ID. Such a GET names that
        // stream; whatever the server keeps of it, the answer must be an SSE stream (or 405,
        // LSSE-1) carrying nothing of another stream (LSSE-7), not the session's GET stream. And
        // whatever the SDK does next to recover that stream must not be refused: every GET it
        // sends after the cancellation, until it goes quiet, gets an SSE stream or 405 (LSSE-1).
        const post = httpLog.find(e => e.method === 'POST' && e.rpc === 'tools/call' && e.rpcId === cancelledCallId);
        const lastId = post?.eventIds?.at(-1);
        assert(lastId !== undefined, `the cancelled call's stream had an event id: ${JSON.stringify(post)}`);
        const stream = streamOf(lastId);
        const ctl = new AbortController();
        const res = await fetch(opts.target.url, {
            method: 'GET',
            headers: {
                accept: 'text/event-stream',
                'mcp-session-id': transport.sessionId,
                'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
                'last-event-id': lastId
            },
            signal: ctl.signal
        });
        const contentType = res.headers.get('content-type');
        const ids = [];
        let body = null;
        if (res.ok && res.body) {
            const done = collectEventIds(res.body, ids);
            await Promise.race([done, new Promise(r => setTimeout(r, 500))]);
            ctl.abort();
        } else body = await res.text();
        trace({ http: 'resume-cancelled-stream', lastEventId: lastId, status: res.status, contentType, eventIds: ids, body });
        // The SDK reconnects after the priming event's retry interval (1 s here): wait until it
        // has sent no GET for 2.5 s (at most 12 s).
        const t0 = Date.now();
        for (;;) {
            const lastGet = Math.max(0, ...httpLog.filter(e => e.method === 'GET').map(e => e.t));
            if (Date.now() - lastGet >= 2500 || Date.now() - t0 > 12_000) break;
            await new Promise(r => setTimeout(r, 100));
        }
        const sdkGets = httpLog.slice(httpLog.indexOf(post) + 1).filter(e => e.method === 'GET');
        const detail = {
            lastEventId: lastId,
            status: res.status,
            contentType,
            eventIds: ids,
            body,
            sdkGets: sdkGets.map(e => ({ lastEventId: e.lastEventIdSent, status: e.status, eventIds: e.eventIds }))
        };
        assert(
            res.status === 405 || (res.status === 200 && String(contentType).startsWith('text/event-stream')),
            `GET with Last-Event-ID ${lastId} answered with an SSE stream or 405: ${JSON.stringify(detail)}`
        );
        const foreign = ids.filter(id => streamOf(id) !== stream);
        assert(foreign.length === 0, `no events of another stream: ${JSON.stringify(detail)}`);
        assert(sdkGets.every(e => e.status === 200 || e.status === 405), `every GET the SDK sent after the cancellation got an SSE stream or 405: ${JSON.stringify(detail.sdkGets)}`);
        return detail;
    });

    await check('http:session-terminate', async () => {
        const sid = transport.sessionId;
        assert(sid, 'transport has a session id');
        const before = httpLog.length;
        await transport.terminateSession();
        const del = httpLog.slice(before).find(e => e.method === 'DELETE');
        assert(del && del.status >= 200 && del.status < 300 && del.sessionIdSent === sid, `DELETE accepted: ${JSON.stringify(del)}`);
        // The terminated session is gone: a request naming it gets 404 (the client would start anew).
        const res = await fetch(opts.target.url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-session-id': sid,
                'mcp-protocol-version': LEGACY_PROTOCOL_VERSION
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9001, method: 'tools/list', params: {} })
        });
        const body = await res.text();
        trace({ http: 'after-delete', status: res.status, body });
        assert(res.status === 404, `request on the terminated session: HTTP ${res.status} ${body}`);
        return { deleteStatus: del.status, afterDelete: res.status };
    });
}

// ---------------------------------------------------------------------------
let exitCode = 0;
try {
    await main();
} catch (e) {
    summary.checks.push({ name: 'unexpected', ok: false, error: describeError(e) });
    exitCode = 1;
}
try {
    await withTimeout(client.close(), 10_000, 'client.close()');
} catch (e) {
    summary.errors.push({ during: 'close', ...describeError(e) });
}
printSummaryAndExit(exitCode);
