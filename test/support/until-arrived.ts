// A sandbox test waits for the calls it holds to reach the host before it acts (kills,
// stops, cancels). If a run it waits on ends first (it crashed, or hit a limit), those calls
// never come: this fails then, with the outcome, instead of polling until jest's timeout
// with nothing to say why — and after `ms` in any case, quoting what it waited for and,
// given `describe`, where things stood then.
import type { RunOutcome } from '../../sandbox/types.ts';

export async function untilArrived(
  arrived: () => boolean,
  runs: readonly Promise<RunOutcome>[],
  ms = 30_000,
  describe?: () => string,
): Promise<void> {
  let ended: RunOutcome | undefined;
  for (const run of runs)
    void run.then(
      (outcome) => void (ended ??= outcome),
      () => {},
    );
  const deadline = Date.now() + ms;
  while (!arrived()) {
    if (ended !== undefined)
      throw new Error(`a run ended before ${arrived.toString()}: ${JSON.stringify(ended).slice(0, 1_000)}`);
    if (Date.now() > deadline)
      throw new Error(
        `still not so after ${ms} ms: ${arrived.toString()}${describe === undefined ? '' : ` (${describe()})`}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
