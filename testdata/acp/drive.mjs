// Drives `chat acp` as an editor does, with the official ACP TypeScript
// client library, and reports each step as a JSON line on stdout for
// cmd/chat/acp_test.go, which scripts the model server behind it and reads
// these lines as they come (it releases held answers when told).
//
// Environment: CHAT_BIN (the chat binary), ACP_CWD (the session's working
// directory); the rest (the model server, HOME, XDG_*) passes to chat.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const bin = process.env.CHAT_BIN;
const cwd = process.env.ACP_CWD;
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// One editor connection: chat acp as a child, its updates collected.
function connect(name) {
  const child = spawn(bin, ["acp"], { stdio: ["pipe", "pipe", "inherit"], cwd });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const state = { updates: [], waiters: [], permissions: [] };
  const app = acp
    .client({ name })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.updates.push(params.update);
      state.waiters = state.waiters.filter((w) => !(w.pred(params.update) && (w.resolve(params.update), true)));
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const answer = state.permissions.shift() ?? "reject";
      say({ step: "permission", title: params.toolCall.title, toolCallId: params.toolCall.toolCallId, options: params.options, answer });
      const option = params.options.find((o) => o.kind === answer);
      return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
    });
  const next = (pred) => new Promise((resolve) => state.waiters.push({ pred, resolve }));
  return { child, stream, state, app, next };
}

const chunkText = (updates, kind) =>
  updates.filter((u) => u.sessionUpdate === kind && u.content?.type === "text").map((u) => u.content.text).join("");

async function prompt(ctx, conn, sessionId, step, text) {
  const from = conn.state.updates.length;
  const started = Date.now();
  const resp = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  const updates = conn.state.updates.slice(from);
  say({ step, stopReason: resp.stopReason, usage: resp.usage, meta: resp._meta, ms: Date.now() - started,
    text: chunkText(updates, "agent_message_chunk"), updates });
  return resp;
}

async function firstSession() {
  const conn = connect("acp-e2e");
  let sessionId;
  await conn.app.connectWith(conn.stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    say({ step: "initialize", init });

    const created = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    sessionId = created.sessionId;
    await conn.next((u) => u.sessionUpdate === "available_commands_update");
    say({ step: "new", sessionId, modes: created.modes, commands: conn.state.updates.find((u) => u.sessionUpdate === "available_commands_update") });

    await prompt(ctx, conn, sessionId, "hello", "hello there");

    // A write the person rejects, then one they allow.
    conn.state.permissions.push("reject_once");
    await prompt(ctx, conn, sessionId, "write-rejected", "write the note");
    conn.state.permissions.push("allow_once");
    await prompt(ctx, conn, sessionId, "write-allowed", "write the note again");

    // Text steered into a running turn reaches the model.
    const steerAt = conn.next((u) => u.sessionUpdate === "agent_message_chunk");
    const steered = prompt(ctx, conn, sessionId, "steer", "think slowly");
    await steerAt;
    const ack = await ctx.request("_chat/steer", { sessionId, text: "also mention bananas" });
    say({ step: "steered", ack });
    await steered;

    // A prompt sent while a turn runs waits for it.
    const firstChunk = conn.next((u) => u.sessionUpdate === "agent_message_chunk");
    const first = prompt(ctx, conn, sessionId, "queued-first", "first of two");
    await firstChunk;
    const second = prompt(ctx, conn, sessionId, "queued-second", "second of two");
    say({ step: "queued-sent" });
    await Promise.all([first, second]);

    // Cancel during a stream that hangs.
    const hangChunk = conn.next((u) => u.sessionUpdate === "agent_message_chunk");
    const hung = prompt(ctx, conn, sessionId, "cancelled", "hang please");
    await hangChunk;
    say({ step: "cancelling" });
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    await hung;

    await prompt(ctx, conn, sessionId, "after-cancel", "are you still there");

    if (created.modes?.availableModes?.some((m) => m.id === "read-only")) {
      await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
      await prompt(ctx, conn, sessionId, "read-only", "touch the file");
    }
    const slash = await prompt(ctx, conn, sessionId, "context", "/context");
  });
  conn.child.stdin.end();
  await new Promise((resolve) => conn.child.on("exit", resolve));
  return sessionId;
}

async function loadSession(sessionId) {
  const conn = connect("acp-e2e-reload");
  await conn.app.connectWith(conn.stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    say({ step: "load", modes: loaded.modes, updates: conn.state.updates,
      user: chunkText(conn.state.updates, "user_message_chunk"), text: chunkText(conn.state.updates, "agent_message_chunk") });
    await prompt(ctx, conn, sessionId, "after-load", "one more");
  });
  conn.child.stdin.end();
  await new Promise((resolve) => conn.child.on("exit", resolve));
}

try {
  const id = await firstSession();
  await loadSession(id);
  say({ step: "done" });
} catch (err) {
  say({ step: "error", error: String(err?.stack ?? err), data: err?.data });
  process.exitCode = 1;
}
