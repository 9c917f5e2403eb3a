// The --mcp command-line splitter: shell-like words, no shell.
import { describe, expect, it } from '@jest/globals';
import { parseCommandLine } from '../../src/mcp/index.ts';

describe('parseCommandLine', () => {
  it.each([
    ['npx @modelcontextprotocol/server-filesystem .', 'npx', ['@modelcontextprotocol/server-filesystem', '.']],
    ['  node   server.js\t--root=/tmp  ', 'node', ['server.js', '--root=/tmp']],
    [`node 'my server.js' "a b" c\\ d`, 'node', ['my server.js', 'a b', 'c d']],
    [`node "say \\"hi\\"" 'it''s'`, 'node', ['say "hi"', 'its']],
    [`node "\\n stays" '\\n stays'`, 'node', ['\\n stays', '\\n stays']],
    [`node '' ""`, 'node', ['', '']],
    ['node $HOME *.js | cat', 'node', ['$HOME', '*.js', '|', 'cat']],
  ])('%s', (line, command, args) => {
    expect(parseCommandLine(line)).toEqual({ command, args });
  });

  it.each([
    ['node "open', /unterminated " quote/u],
    [`node 'open`, /unterminated ' quote/u],
    ['   ', /empty; give the server's program/u],
    ['""', /empty/u],
  ])('refuses %j', (line, message) => {
    expect(() => parseCommandLine(line)).toThrow(message);
  });
});
