// `whyslow mcp` driven by a real client: the official TypeScript SDK (@modelcontextprotocol/sdk, the
// version package-lock.json pins) spawns the server over stdio, as an agent does, lists the tools
// and calls each on the committed fixtures. The SDK checks every message against the protocol's
// schemas, the tool results included; this script checks what they say.
//   node tests/mcp/client.mjs WHYSLOW FIXTURES   (run_client_test.sh: ctest's `mcp_sdk_client`)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [whyslow, fixtures] = process.argv.slice(2);
const cold = `${fixtures}/torch/mm_bias_64_fp32_cold.json.gz`;
const logits = `${fixtures}/memory/logits.json.gz`;  // a 121 KB explain document: trimmed
const diffA = `${fixtures}/diff/mlp_bf16.json.gz`;
const diffB = `${fixtures}/diff/mlp_bf16_compiled.json.gz`;
const kMaxResultBytes = 40000;  // src/cli/mcp_trim.hpp

const transport = new StdioClientTransport({ command: whyslow, args: ["mcp"], stderr: "inherit" });
const client = new Client({ name: "whyslow-sdk-test", version: "1.0.0" });
await client.connect(transport);
assert.equal(client.getServerVersion().name, "whyslow");
assert.ok(client.getServerCapabilities().tools, "the server says it has tools");
assert.match(client.getInstructions(), /explain/);
await client.ping();

const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name), ["explain", "diff", "what_if", "ops", "kernels", "memory"]);
for (const t of tools) assert.equal(t.inputSchema.type, "object", t.name);

// A tool's document: content[0] parsed; the result must not be an error.
async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${r.content.map((c) => c.text).join("\n")}`);
  const text = r.content[0].text;
  return { text, doc: JSON.parse(text), notes: r.content.slice(1).map((c) => c.text) };
}
const cli = (...args) => execFileSync(whyslow, args, { encoding: "utf8", maxBuffer: 1 << 28 });

const explained = await call("explain", { trace: logits });
assert.ok(explained.text.length <= kMaxResultBytes, `explain: ${explained.text.length} bytes`);
const fullExplain = JSON.parse(cli("explain", "--json", logits));
assert.deepEqual(explained.doc.findings, fullExplain.findings, "the findings are kept whole");
assert.equal(explained.doc.trimmed.full_bytes, Buffer.byteLength(cli("explain", "--json", logits)));
assert.ok(explained.notes.some((n) => n.includes('"full": true')), "the result says how to get the rest");

const full = await call("explain", { trace: logits, full: true });
assert.equal(full.text, cli("explain", "--json", logits), "full: true is the CLI's document");

const stepped = await call("explain", { trace: cold, step: 2 });
assert.deepEqual(stepped.doc.steps.map((s) => s.name), ["ProfilerStep#2"]);

const ranks = await call("explain", { trace: `${fixtures}/ranks` });
assert.equal(ranks.doc.ranks.length, 2, "a folder of two ranks is explained as a job");

const diff = await call("diff", { a: diffA, b: diffB });
assert.equal(diff.doc.kind, "diff");
assert.deepEqual(diff.doc, JSON.parse(cli("diff", "--json", diffA, diffB)));

const whatIf = await call("what_if", { trace: logits, edits: ["cuda-graphs", "tensor-cores"] });
assert.ok(whatIf.doc.what_if.saved_us > 0);
assert.equal(whatIf.doc.changes.length, 2);

const ops = await call("ops", { trace: cold });
assert.deepEqual(Object.keys(ops.doc), ["whyslow_version", "schema_version", "trace", "ops", "trimmed"]);
assert.deepEqual(ops.doc.ops, JSON.parse(cli("ops", "--json", cold)).ops);

const kernels = await call("kernels", { trace: logits });
assert.ok(kernels.doc.kernels.length > 0);
assert.deepEqual(kernels.doc.kernels[0], fullExplain.kernels[0]);

const memory = await call("memory", { trace: logits });
assert.equal(memory.doc.memory.device, "cuda:0");
assert.deepEqual(memory.doc.memory.by_role, fullExplain.memory.by_role);

// A trace that is not there: a tool error the agent reads, not a protocol error.
const missing = await client.callTool({ name: "explain", arguments: { trace: "/nonexistent/trace.json" } });
assert.equal(missing.isError, true);
assert.match(missing.content[0].text, /\/nonexistent\/trace\.json/);

// A tool that does not exist: a JSON-RPC error, which the SDK throws.
await assert.rejects(client.callTool({ name: "profile", arguments: {} }), /unknown tool/);

await client.close();
console.log(`mcp_sdk_client: ${tools.length} tools listed and called through @modelcontextprotocol/sdk`);
