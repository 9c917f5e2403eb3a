// zod 4 (Standard Schema v1) schemas from outside: directly in defineJsonSchemaTool and
// through fromAiSdkTools. Ordinary zod — .email(), .datetime(), .uuid(), z.record() —
// is accepted, validated as full JSON Schema (formats included), and the schema's own
// validate stays the authority on arguments (refinements, defaults).
import { describe, expect, it } from '@jest/globals';
import { tool } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { createToolRuntime, defineJsonSchemaTool } from '../../src/index.ts';

const Signup = z
  .object({
    email: z.string().email(),
    at: z.string().datetime(),
    id: z.string().uuid(),
    scores: z.record(z.string(), z.number()),
    limit: z.number().int().min(1).max(50).default(20),
  })
  .refine((v) => !v.email.endsWith('@blocked.example'), { message: 'blocked domain', path: ['email'] });

const valid = {
  email: 'ada@example.com',
  at: '2026-12-03T05:00:00Z',
  id: '123e4567-e89b-42d3-a456-426614174000',
  scores: { a: 1 },
};

describe('a zod 4 schema directly in a definition', () => {
  const signup = defineJsonSchemaTool({
    name: 'signup',
    description: 'Signs a user up.',
    parameters: Signup,
    output: {
      schema: z.object({ ok: z.boolean(), limit: z.number() }),
      render: (_a, v) => [{ type: 'text', text: String(v.ok) }],
    },
    // Typed from zod: `args.limit` is a number (the default applied), `args.email` a string.
    execute: (args) => ({ ok: args.email.length > 0, limit: args.limit }),
  });

  it('is JSON Schema for models and the SDK, with the constraints', () => {
    expect(signup.schemaWarnings).toEqual([]);
    expect(signup.parameters).toMatchObject({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        id: { format: 'uuid' },
        limit: { minimum: 1, maximum: 50, default: 20 },
      },
    });
    expect(signup.parameters).not.toHaveProperty('$schema');
  });

  it("validates formats with ajv, and the schema's own refinement and default as the authority", async () => {
    const rt = createToolRuntime({ sandbox: false });
    rt.register(signup);
    const ok = await rt.execute({ callId: 'a', name: 'signup', arguments: valid });
    expect(ok.value).toEqual({ ok: true, limit: 20 });
    for (const [args, message] of [
      [{ ...valid, email: 'nope' }, '/email must be an email address (format "email")'],
      [{ ...valid, at: 'yesterday' }, '/at must be a date-time (RFC 3339'],
      [{ ...valid, id: 'x' }, '/id must be a UUID'],
      [{ ...valid, scores: { a: 'one' } }, '/scores/a must be number'],
      [{ ...valid, limit: 51 }, '/limit must be <= 50'],
      [{ ...valid, email: 'ada@blocked.example' }, '/email blocked domain'],
    ] as const) {
      const bad = await rt.execute({ callId: 'b', name: 'signup', arguments: args });
      expect(bad.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining(message) });
    }
    expect(rt.sdk()).toMatch(/ signup: Tool<\{ \/\*\* @format email [^\n]* \}, \{ ok: boolean; limit: number \}>;/u);
  });

  it('a zod schema JSON Schema cannot express is typed loosely with a warning; the tool stays', async () => {
    const when = defineJsonSchemaTool({
      name: 'when',
      description: 'd',
      parameters: z.object({ day: z.date() }),
      output: { render: () => [] },
      execute: () => null,
    });
    expect(when.schemaWarnings).toEqual([
      expect.stringContaining('parameters is typed loosely (the zod schema cannot be expressed as JSON Schema'),
    ]);
    expect(when.parameters).toEqual({ type: 'object' });
    // zod's validate is still the authority.
    const rt = createToolRuntime({ sandbox: false });
    rt.register(when);
    const bad = await rt.execute({ callId: 'w', name: 'when', arguments: { day: '2026-01-01' } });
    expect(bad.error?.code).toBe('INVALID_ARGS');
  });
});

describe('zod 4 through fromAiSdkTools', () => {
  it('accepts .email(), .datetime(), .uuid() and z.record(), one tool never failing the set', async () => {
    const tools = await fromAiSdkTools({
      signup: tool({ description: 'Signs up.', inputSchema: Signup, execute: async (args) => ({ limit: args.limit }) }),
      tags: tool({
        description: 'Tags.',
        inputSchema: z.object({ tags: z.record(z.string(), z.array(z.string().max(10))) }),
        execute: async ({ tags }) => Object.keys(tags).length,
      }),
    });
    expect(tools.map((t) => t.name)).toEqual(['signup', 'tags']);
    const rt = createToolRuntime({ sandbox: false });
    for (const t of tools) rt.register(t);
    expect((await rt.execute({ callId: 'a', name: 'signup', arguments: valid })).value).toEqual({ limit: 20 });
    const bad = await rt.execute({ callId: 'b', name: 'signup', arguments: { ...valid, email: 'nope' } });
    expect(bad.error).toMatchObject({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('/email must be an email address (format "email")'),
    });
    expect((await rt.execute({ callId: 'c', name: 'tags', arguments: { tags: { a: ['x'], b: [] } } })).value).toBe(2);
    const long = await rt.execute({ callId: 'd', name: 'tags', arguments: { tags: { a: ['x'.repeat(11)] } } });
    expect(long.error?.code).toBe('INVALID_ARGS');
  });

  it('parses the arguments once: a zod transform runs once, and the body gets its output', async () => {
    let runs = 0;
    const [length] = await fromAiSdkTools({
      length: tool({
        description: 'Length of s.',
        inputSchema: z.object({
          s: z.string().transform((x) => {
            runs += 1;
            return x.length;
          }),
        }),
        execute: async ({ s }) => s * 10,
      }),
    });
    const rt = createToolRuntime({ sandbox: false });
    rt.register(length!);
    const result = await rt.execute({ callId: 't', name: 'length', arguments: { s: 'abc' } });
    expect(result.error).toBeUndefined();
    expect(result.value).toBe(30);
    expect(runs).toBe(1);
  });

  it('keeps a tool whose zod schema has no JSON Schema form (z.bigint(), z.date()), typed loosely, beside the others', async () => {
    const tools = await fromAiSdkTools({
      big: tool({
        description: 'Big.',
        inputSchema: z.object({ n: z.bigint().optional(), q: z.string() }),
        execute: async ({ q }) => q,
      }),
      plain: tool({
        description: 'Plain.',
        inputSchema: z.object({ q: z.string() }),
        execute: async ({ q }) => q.toUpperCase(),
      }),
    });
    expect(tools.map((t) => t.name)).toEqual(['big', 'plain']);
    expect(tools[0]!.schemaWarnings).toEqual([expect.stringContaining('parameters is typed loosely')]);
    const rt = createToolRuntime({ sandbox: false });
    for (const t of tools) rt.register(t);
    expect((await rt.execute({ callId: 'a', name: 'big', arguments: { q: 'x' } })).value).toBe('x');
    // zod's own validate still refuses what the loose JSON type lets through.
    expect((await rt.execute({ callId: 'b', name: 'big', arguments: { q: 1 } })).error?.code).toBe('INVALID_ARGS');
    expect((await rt.execute({ callId: 'c', name: 'plain', arguments: { q: 'x' } })).value).toBe('X');
  });
});
