#!/usr/bin/env node
// Interop test server built on the official MCP TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32.2), which speaks only the
// initialize-based revisions (2025-11-25 and older): the legacy server a
// dual-era client falls back to.
//
// Usage:
//   node ts-v1-server.mjs                   # stdio (default)
//   node ts-v1-server.mjs --http 0          # Streamable HTTP on 127.0.0.1, random port, with sessions
//   node ts-v1-server.mjs --http 8931 --host 127.0.0.1 --path /mcp
//   --json          answer POSTs with application/json instead of SSE streams
//   --no-resume     no event store (no SSE event ids, no Last-Event-ID replay)
//
// HTTP mode prints exactly one line to stdout once listening:
//   LISTENING http://127.0.0.1:PORT/mcp
// (stdout is the MCP channel in stdio mode; diagnostics go to stderr). Set
// TS_SERVER_DEBUG=1 for more logs.
//
// Surface (identical on both transports; input comes from server-to-client
// requests, the 2025-11-25 way, not MRTR):
//   tools:      echo, add (outputSchema), fail (isError), progress (notifications/progress),
//               slow (cancellable wait), stats (counters), log (notifications/message),
//               ask_name (elicitation/create), sample (sampling/createMessage),
//               list_roots (roots/list), multi_round (elicitation, then sampling + roots),
//               add_tool (registers dynamic_N: tools/list_changed),
//               touch_resource (resources/updated for test://static when subscribed)
//   prompts:    greet {name (completable)}, confirm_prompt (elicitation inside prompts/get)
//   resources:  test://static (text, subscribable), test://items/{id} (template; id completable)
//   completion: prompt greet/name, template test://items/{id}/id
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import process from 'node:process';

import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
    CreateMessageResultSchema,
    ElicitResultSchema,
    ListRootsResultSchema,
    SubscribeRequestSchema,
    UnsubscribeRequestSchema
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------
function parseArgs(argv) {
    const opts = { transport: 'stdio', port: 0, host: '127.0.0.1', path: '/mcp', json: false, resume: true };
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
        else if (a === '--json') opts.json = true;
        else if (a === '--no-resume') opts.resume = false;
        else if (a === '-h' || a === '--help') {
            process.stderr.write('usage: ts-v1-server.mjs [--stdio | --http [PORT]] [--host H] [--path /mcp] [--json] [--no-resume]\n');
            process.exit(0);
        } else {
            process.stderr.write(`ts-v1-server: unknown argument ${a}\n`);
            process.exit(2);
        }
    }
    return opts;
}
const opts = parseArgs(process.argv.slice(2));
const DEBUG = process.env.TS_SERVER_DEBUG === '1';
const log = (...args) => process.stderr.write(`[ts-v1-server ${process.pid}] ${args.join(' ')}\n`);
const debug = (...args) => DEBUG && log(...args);

// ---------------------------------------------------------------------------
// Process-wide state (one McpServer per HTTP session or stdio connection)
// ---------------------------------------------------------------------------
const state = {
    dynamicTools: [],
    slowStarted: 0,
    slowCancelled: 0,
    /** McpServer → the set of URIs its session subscribed to. */
    live: new Map()
};

const text = t => ({ type: 'text', text: t });
const textOf = content => (Array.isArray(content) ? content : [content]).map(b => b?.text ?? '').join('');

function registerDynamicTool(server, name) {
    server.registerTool(name, { description: `Dynamically added tool ${name}`, inputSchema: {} }, async () => ({
        content: [text(`${name} called`)]
    }));
}

const nameForm = {
    type: 'object',
    properties: { name: { type: 'string', description: 'Your name' } },
    required: ['name']
};

function buildServer() {
    const server = new McpServer(
        { name: 'ts-v1-interop-server', version: '1.32.2-interop' },
        {
            capabilities: {
                tools: { listChanged: true },
                prompts: { listChanged: true },
                resources: { listChanged: true, subscribe: true },
                completions: {},
                logging: {}
            },
            instructions: 'TypeScript SDK v1 interop test server.'
        }
    );
    // Requests related to the call travel on its POST stream; with JSON
    // responses there is none, and they go on the GET stream instead.
    const ask = (method, params, extra, schema) =>
        server.server.request({ method, params }, schema, {
            relatedRequestId: opts.json ? undefined : extra.requestId,
            signal: extra.signal
        });

    server.registerTool(
        'echo',
        { title: 'Echo', description: 'Echoes the message back', inputSchema: { message: z.string() } },
        async ({ message }) => ({ content: [text(`echo: ${message}`)] })
    );
    server.registerTool(
        'add',
        {
            description: 'Adds two numbers (structured output)',
            inputSchema: { a: z.number(), b: z.number() },
            outputSchema: { sum: z.number() }
        },
        async ({ a, b }) => ({ content: [text(String(a + b))], structuredContent: { sum: a + b } })
    );
    server.registerTool('fail', { description: 'Always returns a tool error (isError: true)', inputSchema: {} }, async () => ({
        content: [text('this tool always fails')],
        isError: true
    }));
    server.registerTool(
        'progress',
        {
            description: 'Emits notifications/progress (when a progressToken is given) then completes',
            inputSchema: { steps: z.number().int().min(1).max(20).default(3) }
        },
        async ({ steps }, extra) => {
            const token = extra._meta?.progressToken;
            if (token !== undefined) {
                for (let i = 1; i <= steps; i++) {
                    await extra.sendNotification({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` }
                    });
                    await new Promise(r => setTimeout(r, 10));
                }
            }
            return { content: [text(`done ${steps} steps`)] };
        }
    );
    server.registerTool(
        'slow',
        {
            description: 'Waits `ms` milliseconds (default 10000) unless cancelled; counts cancellations (see stats)',
            inputSchema: { ms: z.number().int().min(0).max(600_000).default(10_000) }
        },
        async ({ ms }, extra) => {
            state.slowStarted++;
            const cancelled = await new Promise(resolve => {
                const timer = setTimeout(() => resolve(false), ms);
                extra.signal.addEventListener(
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
                debug('slow: cancelled by notifications/cancelled');
            }
            return { content: [text(cancelled ? 'cancelled' : `slept ${ms}ms`)] };
        }
    );
    server.registerTool('stats', { description: 'Process-wide counters', inputSchema: {} }, async () => {
        const st = { slowStarted: state.slowStarted, slowCancelled: state.slowCancelled, dynamicTools: state.dynamicTools };
        return { content: [text(JSON.stringify(st))], structuredContent: st };
    });
    server.registerTool(
        'log',
        { description: 'Sends one notifications/message at the given level', inputSchema: { level: z.string().default('info') } },
        async ({ level }, extra) => {
            await server.sendLoggingMessage({ level, logger: 'ts-v1', data: `a ${level} message` }, extra.sessionId);
            return { content: [text(`logged at ${level}`)] };
        }
    );

    // --- input through server-to-client requests -----------------------------
    server.registerTool('ask_name', { description: 'Asks for a name (elicitation/create)', inputSchema: {} }, async (_args, extra) => {
        const r = await ask('elicitation/create', { message: 'What is your name?', requestedSchema: nameForm }, extra, ElicitResultSchema);
        if (r.action !== 'accept') return { content: [text(`elicitation ${r.action}`)] };
        return { content: [text(`Hello, ${r.content.name}!`)] };
    });
    server.registerTool(
        'sample',
        { description: 'Asks the client LLM (sampling/createMessage)', inputSchema: { prompt: z.string().default('Say hi') } },
        async ({ prompt }, extra) => {
            const r = await ask(
                'sampling/createMessage',
                { messages: [{ role: 'user', content: text(prompt) }], maxTokens: 64 },
                extra,
                CreateMessageResultSchema
            );
            return { content: [text(`model ${r.model} said: ${textOf(r.content)}`)] };
        }
    );
    server.registerTool('list_roots', { description: 'Lists the client roots (roots/list)', inputSchema: {} }, async (_args, extra) => {
        const r = await ask('roots/list', {}, extra, ListRootsResultSchema);
        return { content: [text(`roots: ${r.roots.map(x => x.uri).join(',')}`)] };
    });
    server.registerTool(
        'multi_round',
        { description: 'Elicitation, then sampling and roots at once', inputSchema: {} },
        async (_args, extra) => {
            const n = await ask('elicitation/create', { message: 'Name for multi_round?', requestedSchema: nameForm }, extra, ElicitResultSchema);
            if (n.action !== 'accept') return { content: [text(`elicitation ${n.action}`)] };
            const [llm, roots] = await Promise.all([
                ask('sampling/createMessage', { messages: [{ role: 'user', content: text(`Greet ${n.content.name}`) }], maxTokens: 32 }, extra, CreateMessageResultSchema),
                ask('roots/list', {}, extra, ListRootsResultSchema)
            ]);
            return {
                content: [text(`name=${n.content.name}; llm=${textOf(llm.content)}; roots=${roots.roots.map(r => r.uri).join(',')}`)]
            };
        }
    );

    // --- change notifications ------------------------------------------------
    server.registerTool('add_tool', { description: 'Registers dynamic_N (tools/list_changed)', inputSchema: {} }, async () => {
        const name = `dynamic_${state.dynamicTools.length + 1}`;
        state.dynamicTools.push(name);
        for (const s of state.live.keys()) registerDynamicTool(s, name); // McpServer announces it itself
        return { content: [text(`added ${name}`)] };
    });
    server.registerTool(
        'touch_resource',
        { description: 'Sends resources/updated for test://static to the sessions subscribed to it', inputSchema: {} },
        async () => {
            let n = 0;
            for (const [s, subs] of state.live) {
                if (subs.has('test://static')) {
                    n++;
                    await s.server.sendResourceUpdated({ uri: 'test://static' });
                }
            }
            return { content: [text(`touched test://static for ${n} session(s)`)] };
        }
    );
    for (const name of state.dynamicTools) registerDynamicTool(server, name);

    // --- prompts ---------------------------------------------------------------
    server.registerPrompt(
        'greet',
        {
            title: 'Greeting',
            description: 'Greets someone',
            argsSchema: {
                name: completable(z.string().describe('Who to greet'), value => ['alice', 'albert', 'bob', 'carol'].filter(n => n.startsWith(value)))
            }
        },
        ({ name }) => ({ description: 'A greeting', messages: [{ role: 'user', content: text(`Please greet ${name}`) }] })
    );
    server.registerPrompt('confirm_prompt', { description: 'Asks for a topic (elicitation inside prompts/get)' }, async extra => {
        const r = await ask(
            'elicitation/create',
            { message: 'Topic?', requestedSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] } },
            extra,
            ElicitResultSchema
        );
        const topic = r.action === 'accept' ? r.content.topic : 'nothing';
        return { messages: [{ role: 'user', content: text(`Talk about ${topic}`) }] };
    });

    // --- resources ---------------------------------------------------------------
    server.registerResource('static', 'test://static', { title: 'Static resource', mimeType: 'text/plain' }, async uri => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'static content' }]
    }));
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
        async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id }) }] })
    );
    const subs = new Set();
    server.server.setRequestHandler(SubscribeRequestSchema, async req => {
        subs.add(req.params.uri);
        debug(`subscribe ${req.params.uri}`);
        return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async req => {
        subs.delete(req.params.uri);
        debug(`unsubscribe ${req.params.uri}`);
        return {};
    });

    const track = () => state.live.set(server, subs);
    const untrack = () => state.live.delete(server);
    return { server, track, untrack };
}

// ---------------------------------------------------------------------------
// Serving
// ---------------------------------------------------------------------------
if (opts.transport === 'stdio') {
    const { server, track, untrack } = buildServer();
    const transport = new StdioServerTransport();
    transport.onclose = untrack;
    await server.connect(transport);
    track();
    process.stdin.on('end', () => {
        debug('stdin EOF, exiting');
        void server.close().finally(() => process.exit(0));
    });
    for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => void server.close().finally(() => process.exit(0)));
    debug('serving stdio');
} else {
    /** session id → transport */
    const sessions = new Map();
    const httpServer = createServer(async (req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (url.pathname !== opts.path) {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
            return;
        }
        const sid = req.headers['mcp-session-id'];
        debug(`${req.method} session=${sid ?? '-'} version=${req.headers['mcp-protocol-version'] ?? '-'} last-event-id=${req.headers['last-event-id'] ?? '-'}`);
        let body;
        if (req.method === 'POST') {
            const chunks = [];
            for await (const c of req) chunks.push(c);
            try {
                body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
                res.writeHead(400, { 'content-type': 'application/json' }).end(
                    JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null })
                );
                return;
            }
        }
        if (sid !== undefined) {
            const t = sessions.get(sid);
            if (!t) {
                res.writeHead(404, { 'content-type': 'application/json' }).end(
                    JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null })
                );
                return;
            }
            await t.handleRequest(req, res, body);
            return;
        }
        if (req.method === 'POST' && body?.method === 'initialize') {
            const { server, track, untrack } = buildServer();
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                enableJsonResponse: opts.json,
                eventStore: opts.resume ? new InMemoryEventStore() : undefined,
                onsessioninitialized: id => {
                    sessions.set(id, transport);
                    track();
                    debug(`session ${id} opened`);
                }
            });
            transport.onclose = () => {
                if (transport.sessionId) sessions.delete(transport.sessionId);
                untrack();
                debug(`session ${transport.sessionId} closed`);
            };
            await server.connect(transport);
            await transport.handleRequest(req, res, body);
            return;
        }
        res.writeHead(400, { 'content-type': 'application/json' }).end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null })
        );
    });
    httpServer.listen(opts.port, opts.host, () => {
        const addr = httpServer.address();
        const url = `http://${opts.host}:${addr.port}${opts.path}`;
        process.stdout.write(`LISTENING ${url}\n`);
        log(`listening on ${url}`);
    });
    const shutdown = () => {
        for (const t of sessions.values()) void t.close();
        httpServer.close();
        httpServer.closeAllConnections?.();
        process.exit(0);
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
}
