#!/usr/bin/env node
// Interop test server built on the official MCP TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2),
// serving protocol revision 2026-07-28.
//
// Usage:
//   node ts-server.mjs                      # stdio (default)
//   node ts-server.mjs --http 0             # Streamable HTTP on 127.0.0.1, random port
//   node ts-server.mjs --http 8931 --host 127.0.0.1 --path /mcp
//   MCP_TRANSPORT=http PORT=8931 node ts-server.mjs
//   --modern-only   reject 2025-era (initialize) traffic instead of serving it
//
// HTTP mode prints exactly one line to stdout once listening:
//   LISTENING http://127.0.0.1:PORT/mcp
// (stdout is the MCP channel in stdio mode, so nothing else is ever printed
// there; all diagnostics go to stderr). Set TS_SERVER_DEBUG=1 for more logs.
//
// Surface (identical on both transports):
//   tools:      echo, add (outputSchema), fail (isError), progress (notifications/progress),
//               slow (cancellable wait), stats (counters), header_echo (x-mcp-header Region),
//               ask_name (elicitation via MRTR), sample (sampling via MRTR),
//               list_roots (roots via MRTR), multi_round (2 MRTR rounds + requestState),
//               add_tool (registers dynamic_N and fires tools/list_changed),
//               touch_resource (fires resources/updated for test://static)
//   prompts:    greet {name (completable)}, confirm_prompt (elicitation via MRTR)
//   resources:  test://static (text), test://items/{id} (template; id completable)
//   completion: prompt greet/name, template test://items/{id}/id
import { createServer } from 'node:http';
import process from 'node:process';

import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
    acceptedContent,
    completable,
    createMcpHandler,
    fromJsonSchema,
    inputRequired,
    inputResponse,
    McpServer,
    ResourceTemplate
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

// ---------------------------------------------------------------------------
// CLI / env
// ---------------------------------------------------------------------------
function parseArgs(argv) {
    const opts = {
        transport: process.env.MCP_TRANSPORT === 'http' ? 'http' : 'stdio',
        port: process.env.PORT !== undefined ? Number(process.env.PORT) : 0,
        host: process.env.HOST ?? '127.0.0.1',
        path: process.env.MCP_PATH ?? '/mcp',
        modernOnly: process.env.MODERN_ONLY === '1'
    };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--http') {
            opts.transport = 'http';
            const next = argv[i + 1];
            if (next !== undefined && /^\d+$/.test(next)) {
                opts.port = Number(next);
                i++;
            }
        } else if (a === '--stdio') opts.transport = 'stdio';
        else if (a === '--port') opts.port = Number(argv[++i]);
        else if (a === '--host') opts.host = argv[++i];
        else if (a === '--path') opts.path = argv[++i];
        else if (a === '--modern-only') opts.modernOnly = true;
        else if (a === '-h' || a === '--help') {
            process.stderr.write('usage: ts-server.mjs [--stdio | --http [PORT]] [--host H] [--path /mcp] [--modern-only]\n');
            process.exit(0);
        } else {
            process.stderr.write(`ts-server: unknown argument ${a}\n`);
            process.exit(2);
        }
    }
    return opts;
}
const opts = parseArgs(process.argv.slice(2));
const DEBUG = process.env.TS_SERVER_DEBUG === '1';
const log = (...args) => process.stderr.write(`[ts-server ${process.pid}] ${args.join(' ')}\n`);
const debug = (...args) => DEBUG && log(...args);

// ---------------------------------------------------------------------------
// Process-wide state (the HTTP entry builds a fresh McpServer per request, so
// anything that must survive between requests lives here).
// ---------------------------------------------------------------------------
const state = {
    dynamicTools: [], // names registered through add_tool
    slowStarted: 0, // calls of `slow` that started
    slowCancelled: 0, // calls of `slow` whose ctx.mcpReq.signal was aborted (client cancellation)
    /** McpServer instances currently connected (stdio: the pinned one). */
    liveServers: new Set()
};

/** Set in HTTP mode: the createMcpHandler handle (its .notify publishes onto listen streams). */
let httpHandler;

const text = t => ({ type: 'text', text: t });

// requestState helpers: base64(JSON). NOT integrity protected - fine for a
// test server (a forged value can only make the request fail).
const encodeState = obj => Buffer.from(JSON.stringify(obj), 'utf8').toString('base64');
function decodeState(raw) {
    if (typeof raw !== 'string') return undefined;
    try {
        return JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
    } catch {
        return undefined;
    }
}

function registerDynamicTool(server, name) {
    server.registerTool(
        name,
        { description: `Dynamically added tool ${name}`, inputSchema: z.object({}) },
        async () => ({ content: [text(`${name} called`)] })
    );
}

/** Fire tools/list_changed on every transport. */
function publishToolsChanged() {
    if (httpHandler) {
        httpHandler.notify.toolsChanged();
    } else {
        // stdio: the pinned instance's own send*ListChanged() output is routed
        // by serveStdio onto the open subscriptions/listen subscriptions.
        for (const s of state.liveServers) s.sendToolListChanged();
    }
}

function publishResourceUpdated(uri) {
    if (httpHandler) {
        httpHandler.notify.resourceUpdated(uri);
    } else {
        for (const s of state.liveServers) void s.server.sendResourceUpdated({ uri });
    }
}

// ---------------------------------------------------------------------------
// The server factory (called per HTTP request, or once per stdio connection)
// ---------------------------------------------------------------------------
function buildServer(ctx) {
    debug(`factory era=${ctx?.era}`);
    const server = new McpServer(
        { name: 'ts-interop-server', version: '2.4.0-interop' },
        {
            capabilities: {
                tools: { listChanged: true },
                prompts: { listChanged: true },
                resources: { listChanged: true, subscribe: true },
                completions: {}
            },
            instructions: 'TypeScript SDK interop test server.',
            cacheHints: {
                'server/discover': { ttlMs: 60_000, cacheScope: 'public' }
            }
        }
    );

    // --- plain tools -------------------------------------------------------
    server.registerTool(
        'echo',
        {
            title: 'Echo',
            description: 'Echoes the message back',
            inputSchema: z.object({ message: z.string() })
        },
        async ({ message }) => ({ content: [text(`echo: ${message}`)] })
    );

    server.registerTool(
        'add',
        {
            description: 'Adds two numbers (structured output)',
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            outputSchema: z.object({ sum: z.number() })
        },
        async ({ a, b }) => ({ content: [text(String(a + b))], structuredContent: { sum: a + b } })
    );

    server.registerTool(
        'fail',
        { description: 'Always returns a tool error (isError: true)', inputSchema: z.object({}) },
        async () => ({ content: [text('this tool always fails')], isError: true })
    );

    server.registerTool(
        'progress',
        {
            description: 'Emits notifications/progress (when a progressToken is given) then completes',
            inputSchema: z.object({ steps: z.number().int().min(1).max(20).default(3) })
        },
        async ({ steps }, ctx) => {
            const token = ctx.mcpReq._meta?.progressToken;
            if (token !== undefined) {
                for (let i = 1; i <= steps; i++) {
                    await ctx.mcpReq.notify({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` }
                    });
                    await new Promise(r => setTimeout(r, 10));
                }
            }
            return { content: [text(`done ${steps} steps (progressToken=${token === undefined ? 'none' : JSON.stringify(token)})`)] };
        }
    );

    server.registerTool(
        'slow',
        {
            description: 'Waits `ms` milliseconds (default 10000) unless cancelled; counts cancellations (see stats)',
            inputSchema: z.object({ ms: z.number().int().min(0).max(600_000).default(10_000) })
        },
        async ({ ms }, ctx) => {
            state.slowStarted++;
            const signal = ctx.mcpReq.signal;
            const cancelled = await new Promise(resolve => {
                const timer = setTimeout(() => resolve(false), ms);
                signal.addEventListener(
                    'abort',
                    () => {
                        clearTimeout(timer);
                        resolve(true);
                    },
                    { once: true }
                );
            });
            if (cancelled) {
                state.slowCancelled++;
                debug('slow: cancelled by client');
            }
            return { content: [text(cancelled ? 'cancelled' : `slept ${ms}ms`)] };
        }
    );

    server.registerTool(
        'stats',
        { description: 'Process-wide counters (slowStarted, slowCancelled, dynamicTools)', inputSchema: z.object({}) },
        async () => {
            const st = { slowStarted: state.slowStarted, slowCancelled: state.slowCancelled, dynamicTools: state.dynamicTools };
            return { content: [text(JSON.stringify(st))], structuredContent: st };
        }
    );

    // SEP-2243: a parameter mirrored into the `Mcp-Param-Region` HTTP header.
    // Plain JSON Schema (fromJsonSchema) because zod cannot carry `x-mcp-header`.
    server.registerTool(
        'header_echo',
        {
            description: 'Echoes `region`, which clients must mirror into the Mcp-Param-Region header on HTTP',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
                required: ['region']
            })
        },
        async args => ({ content: [text(`region=${args.region}`)] })
    );

    // --- MRTR tools ----------------------------------------------------------
    const nameSchema = z.object({ name: z.string() });
    server.registerTool(
        'ask_name',
        { description: 'Asks the user for their name through elicitation (MRTR)', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'name');
            if (view.kind === 'elicit' && view.action !== 'accept') {
                return { content: [text(`elicitation ${view.action}`)] };
            }
            const got = acceptedContent(ctx.mcpReq.inputResponses, 'name', nameSchema);
            if (got === undefined) {
                return inputRequired({
                    inputRequests: {
                        name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema })
                    },
                    requestState: encodeState({ tool: 'ask_name', round: 1 })
                });
            }
            const st = decodeState(ctx.mcpReq.requestState());
            return { content: [text(`Hello, ${got.name}!`)], structuredContent: { name: got.name, requestState: st ?? null } };
        }
    );

    server.registerTool(
        'sample',
        {
            description: 'Asks the client LLM (sampling via MRTR)',
            inputSchema: z.object({ prompt: z.string().default('Say hi') })
        },
        async ({ prompt }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'llm');
            if (view.kind !== 'sampling') {
                return inputRequired({
                    inputRequests: {
                        llm: inputRequired.createMessage({
                            messages: [{ role: 'user', content: text(prompt) }],
                            maxTokens: 64
                        })
                    }
                });
            }
            const c = view.result.content;
            const answer = Array.isArray(c) ? c.map(b => b.text ?? '').join('') : (c?.text ?? '');
            return { content: [text(`model ${view.result.model} said: ${answer}`)] };
        }
    );

    server.registerTool(
        'list_roots',
        { description: 'Lists the client roots (roots via MRTR)', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
            if (view.kind !== 'roots') {
                return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
            }
            return { content: [text(`roots: ${view.roots.map(r => r.uri).join(',')}`)] };
        }
    );

    server.registerTool(
        'multi_round',
        {
            description: 'Round 1: elicitation; round 2: sampling + roots together; requestState carries round 1 data',
            inputSchema: z.object({})
        },
        async (_args, ctx) => {
            const st = decodeState(ctx.mcpReq.requestState());
            if (st?.round === 2) {
                const llm = inputResponse(ctx.mcpReq.inputResponses, 'llm');
                const roots = inputResponse(ctx.mcpReq.inputResponses, 'roots');
                if (llm.kind === 'sampling' && roots.kind === 'roots') {
                    const c = llm.result.content;
                    const answer = Array.isArray(c) ? c.map(b => b.text ?? '').join('') : (c?.text ?? '');
                    return {
                        content: [text(`name=${st.name}; llm=${answer}; roots=${roots.roots.map(r => r.uri).join(',')}`)]
                    };
                }
            }
            const got = acceptedContent(ctx.mcpReq.inputResponses, 'name', nameSchema);
            if (st?.round === 1 && got !== undefined) {
                return inputRequired({
                    inputRequests: {
                        llm: inputRequired.createMessage({
                            messages: [{ role: 'user', content: text(`Greet ${got.name}`) }],
                            maxTokens: 32
                        }),
                        roots: inputRequired.listRoots()
                    },
                    requestState: encodeState({ round: 2, name: got.name })
                });
            }
            return inputRequired({
                inputRequests: { name: inputRequired.elicit({ message: 'Name for multi_round?', requestedSchema: nameSchema }) },
                requestState: encodeState({ round: 1 })
            });
        }
    );

    // --- list-changed / resource-updated triggers ---------------------------
    server.registerTool(
        'add_tool',
        { description: 'Registers a new tool dynamic_N and fires notifications/tools/list_changed', inputSchema: z.object({}) },
        async () => {
            const name = `dynamic_${state.dynamicTools.length + 1}`;
            state.dynamicTools.push(name);
            if (httpHandler) {
                publishToolsChanged();
            } else {
                // stdio: registering on the live instance makes McpServer emit
                // tools/list_changed itself (routed onto listen subscriptions).
                for (const s of state.liveServers) registerDynamicTool(s, name);
            }
            return { content: [text(`added ${name}`)] };
        }
    );

    server.registerTool(
        'touch_resource',
        { description: 'Fires notifications/resources/updated for test://static', inputSchema: z.object({}) },
        async () => {
            publishResourceUpdated('test://static');
            return { content: [text('touched test://static')] };
        }
    );

    for (const name of state.dynamicTools) registerDynamicTool(server, name);

    // --- prompts ---------------------------------------------------------------
    server.registerPrompt(
        'greet',
        {
            title: 'Greeting',
            description: 'Greets someone',
            argsSchema: z.object({
                name: completable(z.string().describe('Who to greet'), value =>
                    ['alice', 'albert', 'bob', 'carol'].filter(n => n.startsWith(value))
                )
            })
        },
        ({ name }) => ({
            description: 'A greeting',
            messages: [{ role: 'user', content: text(`Please greet ${name}`) }]
        })
    );

    server.registerPrompt(
        'confirm_prompt',
        { description: 'Needs an elicitation before it can be rendered (MRTR on prompts/get)' },
        ctx => {
            const got = acceptedContent(ctx.mcpReq.inputResponses, 'topic', z.object({ topic: z.string() }));
            if (got === undefined) {
                return inputRequired({
                    inputRequests: {
                        topic: inputRequired.elicit({
                            message: 'Topic?',
                            requestedSchema: z.object({ topic: z.string() })
                        })
                    }
                });
            }
            return { messages: [{ role: 'user', content: text(`Talk about ${got.topic}`) }] };
        }
    );

    // --- resources ---------------------------------------------------------------
    server.registerResource(
        'static',
        'test://static',
        { title: 'Static resource', mimeType: 'text/plain', cacheHint: { ttlMs: 0, cacheScope: 'public' } },
        async uri => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'static content' }] })
    );

    server.registerResource(
        'item',
        new ResourceTemplate('test://items/{id}', {
            list: async () => ({
                resources: [
                    { uri: 'test://items/1', name: 'item 1' },
                    { uri: 'test://items/2', name: 'item 2' }
                ]
            }),
            complete: { id: value => ['1', '2', '10', '42'].filter(v => v.startsWith(value)) }
        }),
        { title: 'Item', description: 'Item by id', mimeType: 'application/json' },
        async (uri, { id }) => ({
            contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id }) }]
        })
    );

    // Track connected instances (stdio uses this to fire list_changed).
    const origConnect = server.connect.bind(server);
    server.connect = async transport => {
        await origConnect(transport);
        state.liveServers.add(server);
        const prev = server.server.onclose;
        server.server.onclose = () => {
            state.liveServers.delete(server);
            prev?.();
        };
    };
    return server;
}

// ---------------------------------------------------------------------------
// Serving
// ---------------------------------------------------------------------------
const onerror = err => debug(`onerror: ${err?.stack ?? err}`);

if (opts.transport === 'stdio') {
    const handle = serveStdio(buildServer, { onerror, legacy: opts.modernOnly ? 'reject' : 'serve' });
    // serveStdio's transport ends on stdin EOF; exit promptly then.
    process.stdin.on('end', () => {
        debug('stdin EOF, exiting');
        void handle.close().finally(() => process.exit(0));
    });
    for (const sig of ['SIGTERM', 'SIGINT']) {
        process.on(sig, () => {
            debug(`${sig}, exiting`);
            void handle.close().finally(() => process.exit(0));
        });
    }
    debug('serving stdio');
} else {
    httpHandler = createMcpHandler(buildServer, {
        onerror,
        legacy: opts.modernOnly ? 'reject' : 'stateless',
        keepAliveMs: 15_000
    });
    const nodeHandler = toNodeHandler(httpHandler, { onerror });
    // DNS-rebinding guards (403 + JSON-RPC error body on failure). An absent Origin passes.
    const validateHost = localhostHostValidation();
    const validateOrigin = localhostOriginValidation();
    const httpServer = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (url.pathname !== opts.path) {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
            return;
        }
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        debug(`${req.method} ${req.url} mcp-method=${req.headers['mcp-method'] ?? '-'}`);
        void nodeHandler(req, res);
    });
    httpServer.listen(opts.port, opts.host, () => {
        const addr = httpServer.address();
        const url = `http://${opts.host}:${addr.port}${opts.path}`;
        process.stdout.write(`LISTENING ${url}\n`);
        log(`listening on ${url}`);
    });
    const shutdown = sig => {
        debug(`${sig}, shutting down`);
        // Graceful: closes listen streams with the SubscriptionsListenResult frame.
        void httpHandler.close().finally(() => {
            httpServer.close();
            httpServer.closeAllConnections?.();
            process.exit(0);
        });
        setTimeout(() => process.exit(0), 2000).unref();
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    // Exit when the parent closes our stdin (handy for test harnesses).
    if (process.env.EXIT_ON_STDIN_EOF === '1') process.stdin.on('end', () => shutdown('stdin EOF')).resume();
}
