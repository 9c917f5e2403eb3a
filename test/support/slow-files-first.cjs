// The order jest runs test files in. With timings from an earlier run (its cache) jest puts
// the slowest files first, so that its two workers finish together; a fresh clone (CI) has
// none, and jest then goes by file size, which put a short file that runs for minutes (the
// docs' blocks) at the end, with one worker idle meanwhile. Here a file without a timing
// gets the one recorded in test-file-seconds.json (seconds, from a whole run on a loaded
// machine: only the order matters), or else a small guess from its size.
const { relative } = require('node:path');
// jest-config's own copy: the default sequencer that this one refines.
const { default: TestSequencer } = require(
  require.resolve('@jest/test-sequencer', { paths: [require.resolve('jest-config')] }),
);
const recorded = require('./test-file-seconds.json');

/** Seconds a file without a timing is guessed to take: 1 s, and 1 s more per 4 KB of test code. */
const guess = (bytes) => 1 + bytes / 4096;

class SlowFilesFirst extends TestSequencer {
  time(test) {
    const timed = super.time(test);
    if (timed !== undefined) return timed;
    const seconds = recorded[relative(test.context.config.rootDir, test.path)];
    return (seconds ?? guess(test.context.hasteFS.getSize(test.path) ?? 0)) * 1000;
  }
}

module.exports = SlowFilesFirst;
