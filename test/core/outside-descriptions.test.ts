// An outside tool's descriptions (the tool's and each one inside its schemas) reach the
// model capped at MAX_DESCRIPTION_CHARS with a marker; data keywords keep their values;
// validation is unchanged.
import { describe, expect, it } from '@jest/globals';
import { MAX_DESCRIPTION_CHARS } from '../../sdk-gen/cap-description.ts';
import { createToolRuntime, defineJsonSchemaTool } from '../../src/index.ts';

const long = (c: string, n = 100_000): string => c.repeat(n);
const marker = (omitted: number): string => `… (truncated, ${omitted} chars)`;

describe('defineJsonSchemaTool: outside descriptions are capped', () => {
  const tool = defineJsonSchemaTool({
    name: 'lookup',
    description: long('d'),
    parameters: {
      type: 'object',
      properties: {
        q: { type: 'string', description: long('q'), default: long('v') },
        // A property named like a data keyword is still a schema.
        default: { type: 'integer', description: long('x'), enum: [1, 2] },
      },
      $defs: { note: { description: long('n'), examples: [{ description: long('e') }] } },
      required: ['q'],
    },
    output: { schema: { type: 'object', description: long('o') }, render: () => [] },
    execute: (args) => ({ got: (args as { q: string }).q }),
  });

  it('caps the tool, property, $defs and output descriptions; leaves default/enum/examples whole', () => {
    const cut = (c: string): string => `${c.repeat(4070)}${marker(95_930)}`;
    expect(cut('d')).toHaveLength(MAX_DESCRIPTION_CHARS);
    expect(tool.description).toBe(cut('d'));
    const p = tool.parameters as {
      properties: Record<string, Record<string, unknown>>;
      $defs: { note: { description: string; examples: { description: string }[] } };
    };
    expect(p.properties['q']).toEqual({ type: 'string', description: cut('q'), default: long('v') });
    expect(p.properties['default']).toEqual({ type: 'integer', description: cut('x'), enum: [1, 2] });
    expect(p.$defs.note.description).toBe(cut('n'));
    expect(p.$defs.note.examples[0]?.description).toBe(long('e'));
    expect((tool.outputSchema as { description: string }).description).toBe(cut('o'));
    expect(JSON.stringify(tool.parameters).length).toBeLessThan(4 * MAX_DESCRIPTION_CHARS + 2 * 100_000 + 200);
  });

  it('short descriptions stay as written; the tool validates and runs as before', async () => {
    const plain = defineJsonSchemaTool({
      name: 'plain',
      description: 'Find one.',
      parameters: { type: 'object', properties: { q: { type: 'string', description: 'What to find.' } } },
      output: { render: () => [] },
      execute: () => 'ok',
    });
    expect(plain.description).toBe('Find one.');
    expect(plain.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string', description: 'What to find.' } },
    });
    const rt = createToolRuntime({ sandbox: false });
    rt.register(tool);
    expect((await rt.execute({ callId: 'a', name: 'lookup', arguments: {} })).error?.code).toBe('INVALID_ARGS');
    expect((await rt.execute({ callId: 'b', name: 'lookup', arguments: { q: 'x' } })).value).toEqual({ got: 'x' });
    await rt.close();
  });
});
