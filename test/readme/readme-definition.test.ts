// The README's "Defining tools" example, run exactly as written (only the package
// specifier is pointed at the sources), in its own Node process.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { runReadmeBlock } from './run-readme-block.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README "Defining tools" example', () => {
  it('runs as written and prints what its comments say', () => {
    const { printed, expected } = runReadmeBlock(root, 'readme-definition');
    expect(expected).toHaveLength(2);
    expect(printed).toEqual(expected);
  });
});
