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

function buildTransport() {
    if (opts.target.kind === 'http') {
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

/** Wrap send/onmessage to trace JSON-RPC traffic. Must run before connect(). */
function instrument(transport) {
    if (!opts.trace) return;
    const origSend = transport.send.bind(transport);
    transport.send = (msg, o) => {
        trace({ dir: 'send', msg });
        return origSend(msg, o);
    };
    // Protocol.connect() chains onto a pre-set onmessage, so this sees every inbound message.
    transport.onmessage = msg => trace({ dir: 'recv', msg });
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
        versionNegotiation: {
            mode: opts.mode === 'pin' ? { pin: PROTOCOL_VERSION } : 'auto',
            probe: { timeoutMs: opts.timeout }
        },
        inputRequired: { autoFulfill: true, maxRounds: 5 }
    }
);

client.onerror = err => {
    summary.errors.push(describeError(err));
    log(`onerror: ${err?.message ?? err}`);
};

/** Build an accepted form response from the requested schema: strings -> ELICIT_STRING, etc. */
function fillForm(schema) {
    const content = {};
    for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
        if (Array.isArray(prop.enum) && prop.enum.length > 0) content[key] = prop.enum[0];
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

// ---------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------
const T = { timeout: opts.timeout };

async function main() {
    const transport = buildTransport();
    instrument(transport);

    // connect(): probes with server/discover (on stdio: on a short-lived sibling process
    // that is then killed, then spawns the real server) and adopts the DiscoverResult.
    const connected = await check('connect', async () => {
        await client.connect(transport, T);
        summary.negotiatedProtocolVersion = client.getNegotiatedProtocolVersion() ?? null;
        summary.protocolEra = client.getProtocolEra() ?? null;
        summary.serverInfo = client.getServerVersion() ?? null;
        summary.serverCapabilities = client.getServerCapabilities() ?? null;
        if (opts.mode === 'pin') assert(summary.negotiatedProtocolVersion === PROTOCOL_VERSION, `negotiated ${summary.negotiatedProtocolVersion}`);
        return {
            negotiatedProtocolVersion: summary.negotiatedProtocolVersion,
            era: summary.protocolEra,
            serverInfo: summary.serverInfo,
            instructions: client.getInstructions() ?? null,
            discover: client.getDiscoverResult() ?? null
        };
    });
    if (connected === undefined) return;

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
        const updates = [];
        const r = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { ...T, onprogress: p => updates.push(p) });
        assert(updates.length >= 1, `received progress notifications (got ${updates.length})`);
        for (let i = 1; i < updates.length; i++) assert(updates[i].progress > updates[i - 1].progress, 'progress increases');
        return { progress: updates, text: textOf(r) };
    });

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

    await check('cancel', async () => {
        // HTTP: aborting closes the request's SSE/HTTP response (no notifications/cancelled POST).
        // stdio: the SDK writes notifications/cancelled {requestId} to the server.
        const ac = new AbortController();
        const t0 = Date.now();
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

    await check('mrtr:elicitation', async () => {
        const before = summary.inputRequests.length;
        const r = await client.callTool({ name: 'ask_name', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('elicitation/create'), 'elicitation handler was invoked');
        assert(textOf(r).includes(ELICIT_STRING), `result mentions ${ELICIT_STRING}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r), structuredContent: r.structuredContent };
    });

    await check('mrtr:sampling', async () => {
        const before = summary.inputRequests.length;
        const r = await client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('sampling/createMessage'), 'sampling handler was invoked');
        assert(textOf(r).includes(SAMPLING_REPLY), `result mentions ${SAMPLING_REPLY}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r) };
    });

    await check('mrtr:roots', async () => {
        const before = summary.inputRequests.length;
        const r = await client.callTool({ name: 'list_roots', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('roots/list'), 'roots handler was invoked');
        assert(textOf(r).includes(ROOT_URI), `result mentions ${ROOT_URI}: ${textOf(r)}`);
        return { fulfilled, text: textOf(r) };
    });

    await check('mrtr:multi_round', async () => {
        const before = summary.inputRequests.length;
        const r = await client.callTool({ name: 'multi_round', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.length >= 3, `three input requests over two rounds (got ${fulfilled.join(',')})`);
        const t = textOf(r);
        assert(t.includes(ELICIT_STRING) && t.includes(SAMPLING_REPLY) && t.includes(ROOT_URI), `combined result: ${t}`);
        return { fulfilled, text: t };
    });

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

    await check('mrtr:prompts/get', async () => {
        const before = summary.inputRequests.length;
        const r = await client.getPrompt({ name: 'confirm_prompt', arguments: {} }, T);
        const fulfilled = summary.inputRequests.slice(before).map(x => x.method);
        assert(fulfilled.includes('elicitation/create'), 'elicitation handler invoked for prompts/get');
        const t = r.messages.map(m => m.content?.text ?? '').join('\n');
        assert(t.includes(ELICIT_STRING), `prompt text mentions ${ELICIT_STRING}: ${t}`);
        return { fulfilled, messages: r.messages };
    });

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
