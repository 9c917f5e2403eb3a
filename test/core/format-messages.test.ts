// Format failures name the format in words, for JSON Schema's `format` and for a zod
// schema, whose regex beside the format would otherwise be what a model reads.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatMessage } from '../../src/definition/format-issue.ts';
import { defineJsonSchemaTool } from '../../src/index.ts';

const output = { schema: { type: 'json' }, render: () => [{ type: 'text' as const, text: 'ok' }] } as const;

describe('format failures', () => {
  it('a zod string format fails as the format, not its regex', () => {
    const tool = defineJsonSchemaTool({
      name: 'invite',
      description: 'Invites someone.',
      parameters: z.object({ email: z.email(), id: z.uuid(), day: z.iso.date(), code: z.string().regex(/^[A-Z]{3}$/) }),
      output,
      execute: () => null,
    });
    const ok = { email: 'a@b.co', id: '123e4567-e89b-12d3-a456-426614174000', day: '2026-01-31', code: 'ABC' };
    expect(tool.argIssues(ok)).toEqual([]);
    expect(tool.argIssues({ ...ok, email: 'nope' })).toEqual([
      { path: '/email', message: 'must be an email address (format "email")' },
    ]);
    expect(tool.argIssues({ ...ok, id: 'x' })).toEqual([
      { path: '/id', message: 'must be a UUID (e.g. 123e4567-e89b-12d3-a456-426614174000) (format "uuid")' },
    ]);
    expect(tool.argIssues({ ...ok, day: '31.01.2026' })).toEqual([
      { path: '/day', message: 'must be a date (YYYY-MM-DD) (format "date")' },
    ]);
    // A pattern of its own (no format beside it) is reported as the pattern.
    expect(tool.argIssues({ ...ok, code: 'abc' })).toEqual([
      { path: '/code', message: 'must match pattern "^[A-Z]{3}$"' },
    ]);
  });

  it('JSON Schema formats, known and unknown', () => {
    const tool = defineJsonSchemaTool({
      name: 'site',
      description: 'A site.',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string', format: 'uri' }, ip: { type: 'string', format: 'ipv4' } },
      },
      output,
      execute: () => null,
    });
    expect(tool.argIssues({ url: 'not a uri' })).toEqual([
      { path: '/url', message: 'must be a URI (e.g. https://example.com/x) (format "uri")' },
    ]);
    expect(tool.argIssues({ ip: '300.1.1.1' })).toEqual([
      { path: '/ip', message: 'must be an IPv4 address (format "ipv4")' },
    ]);
    expect(formatMessage('x-vendor')).toBe('must match format "x-vendor"');
  });
});
