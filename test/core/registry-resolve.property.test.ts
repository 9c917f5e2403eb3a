// resolve() looks a name up layer by layer (nearest scope first) instead of building
// every candidate tool: for any agent tree, registrations and restrictions it agrees
// with visible(), which still builds the whole candidate map.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { defineTool, type Tool } from '../../src/index.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';
import { text } from './helpers.ts';

const NAMES = ['t0', 't1', 't2', 't3', 't4'] as const;
const AGENTS = ['a', 'b', 'c', 'd'] as const; // b is a's child, c is b's child, d stands alone
const LAYERS = [undefined, ...AGENTS] as const;

const tool = (name: string, label: string): Tool =>
  defineTool({
    name,
    description: `${label} ${name}`,
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => text(String(v)) },
    execute: () => label,
  });

const names = fc.subarray([...NAMES], { minLength: 1 });
const step = fc.oneof(
  fc.record({
    kind: fc.constant('register' as const),
    layer: fc.constantFrom(...LAYERS),
    name: fc.constantFrom(...NAMES),
  }),
  fc.record({
    kind: fc.constant('restrict' as const),
    agent: fc.constantFrom(...AGENTS),
    allow: fc.option(names, { nil: undefined }),
    deny: fc.option(names, { nil: undefined }),
  }),
);

describe('ToolRegistry.resolve (property)', () => {
  it('finds exactly the tool visible() lists under that name, for every agent and name', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 14 }), (steps) => {
        const registry = new ToolRegistry();
        registry.createAgent('a');
        registry.createAgent('b', { parent: 'a' });
        registry.createAgent('c', { parent: 'b' });
        registry.createAgent('d');
        steps.forEach((s, i) => {
          try {
            if (s.kind === 'register')
              registry.register(
                tool(s.name, `${s.layer ?? 'global'}#${i}`),
                s.layer === undefined ? {} : { agent: s.layer },
              );
            else
              registry.restrict(s.agent, {
                ...(s.allow === undefined ? {} : { allow: s.allow }),
                ...(s.deny === undefined ? {} : { deny: s.deny }),
              });
          } catch {
            // a duplicate registration or a restriction naming a tool the agent cannot see: refused, nothing changes
          }
        });
        for (const agent of LAYERS) {
          const visible = registry.visible(agent);
          for (const name of [...NAMES, 'missing']) {
            expect(registry.resolve(name, agent)).toBe(visible.find((t) => t.name === name));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
