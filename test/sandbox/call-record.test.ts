// The re-run record on its own: what it keeps, when it gives up, and how a re-run is answered.
import { describe, expect, it } from '@jest/globals';
import { CallRecord, type Divergence } from '../../sandbox/call-record.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';

const request = (seq: number, toolName: string, argsJson: string): HostCallRequest => ({
  seq,
  toolName,
  argsJson,
  signal: new AbortController().signal,
});

/** A host that counts its calls and answers each with its own count. */
function countingHost(): { calls: HostCallRequest[]; hostCall: (r: HostCallRequest) => Promise<HostCallOutcome> } {
  const calls: HostCallRequest[] = [];
  return {
    calls,
    hostCall: async (r) => {
      calls.push(r);
      return { ok: true, valueJson: String(calls.length) };
    },
  };
}

/** The outcome without the time the bridge stamps on it (checked on its own below). */
function withoutAt(outcome: HostCallOutcome): HostCallOutcome {
  const { at: _at, ...rest } = outcome;
  return rest as HostCallOutcome;
}

describe('CallRecord', () => {
  it('a re-run answered from the record gets the recorded time of each outcome', async () => {
    const record = new CallRecord(1_000);
    const first = await record.recording(countingHost().hostCall)(request(1, 'a', '{}'));
    expect(typeof first.at).toBe('number');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await record.replaying(countingHost().hostCall, () => undefined)(request(1, 'a', '{}'));
    expect(again.at).toBe(first.at);
  });

  it('answers a matching re-run from the record and sends only later calls to the host', async () => {
    const record = new CallRecord(1_000);
    const first = countingHost();
    const recording = record.recording(first.hostCall);
    expect(withoutAt(await recording(request(1, 'a', '{"x":1}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(withoutAt(await recording(request(2, 'b', '{}')))).toStrictEqual({ ok: true, valueJson: '2' });
    const second = countingHost();
    const divergences: Divergence[] = [];
    const replaying = record.replaying(second.hostCall, (d) => divergences.push(d));
    expect(withoutAt(await replaying(request(1, 'a', '{"x":1}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(withoutAt(await replaying(request(2, 'b', '{}')))).toStrictEqual({ ok: true, valueJson: '2' });
    expect(withoutAt(await replaying(request(3, 'c', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(first.calls).toHaveLength(2);
    expect(second.calls.map((r) => r.toolName)).toStrictEqual(['c']);
    expect(divergences).toStrictEqual([]);
  });

  it('a call still in flight is awaited by the re-run, not issued again', async () => {
    const record = new CallRecord(1_000);
    let release!: (outcome: HostCallOutcome) => void;
    let calls = 0;
    const recording = record.recording(() => {
      calls += 1;
      return new Promise((resolve) => (release = resolve));
    });
    const original = recording(request(1, 'slow', '{}'));
    const replayed = record.replaying(countingHost().hostCall, () => undefined)(request(1, 'slow', '{}'));
    release({ ok: true, valueJson: '"done"' });
    expect(withoutAt(await replayed)).toStrictEqual({ ok: true, valueJson: '"done"' });
    expect(withoutAt(await original)).toStrictEqual({ ok: true, valueJson: '"done"' });
    expect(calls).toBe(1);
  });

  it('a re-run that may be re-run again keeps recording: the next attempt answers its calls from the record too', async () => {
    const record = new CallRecord(1_000);
    const first = countingHost();
    await record.recording(first.hostCall)(request(1, 'a', '{}'));
    const second = countingHost();
    const shared = record.replaying(second.hostCall, () => undefined, true);
    expect(withoutAt(await shared(request(1, 'a', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(withoutAt(await shared(request(2, 'b', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(record.size).toBe(2);
    const third = countingHost();
    const alone = record.replaying(third.hostCall, () => undefined);
    expect(withoutAt(await alone(request(1, 'a', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(withoutAt(await alone(request(2, 'b', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    expect(withoutAt(await alone(request(3, 'c', '{}')))).toStrictEqual({ ok: true, valueJson: '1' });
    // Each body once: a on the first attempt, b on the shared one, c on the last; the last is not recorded.
    expect([first.calls, second.calls, third.calls].map((calls) => calls.map((r) => r.toolName))).toStrictEqual([
      ['a'],
      ['b'],
      ['c'],
    ]);
    expect(record.size).toBe(2);
  });

  it('a re-run that keeps recording and outgrows the budget leaves a record that cannot be replayed', async () => {
    const record = new CallRecord(40);
    await record.recording(countingHost().hostCall)(request(1, 'a', '{}'));
    const shared = record.replaying(countingHost().hostCall, () => undefined, true);
    await shared(request(1, 'a', '{}'));
    expect(record.replayable).toBe(true);
    await shared(request(2, 'b', JSON.stringify({ s: 'x'.repeat(50) })));
    expect(record.replayable).toBe(false);
  });

  it('refuses and reports the first call that differs in tool or arguments', async () => {
    const record = new CallRecord(1_000);
    await record.recording(countingHost().hostCall)(request(1, 'a', '{"r":0.1}'));
    const host = countingHost();
    const divergences: Divergence[] = [];
    const outcome = await record.replaying(host.hostCall, (d) => divergences.push(d))(request(1, 'a', '{"r":0.2}'));
    expect(outcome).toMatchObject({ ok: false, code: 'RERUN_DIVERGED' });
    expect(divergences).toStrictEqual([{ seq: 1, toolName: 'a', recordedToolName: 'a' }]);
    expect(host.calls).toHaveLength(0);
  });

  it('past its byte budget (arguments or results) it keeps nothing and is not replayable', async () => {
    const small = new CallRecord(20);
    await small.recording(countingHost().hostCall)(request(1, 'a', JSON.stringify({ s: 'x'.repeat(30) })));
    expect(small.replayable).toBe(false);
    expect(small.size).toBe(0);

    const bigResult = new CallRecord(20);
    await bigResult.recording(async () => ({ ok: true, valueJson: JSON.stringify('y'.repeat(50)) }))(
      request(1, 'a', '{}'),
    );
    expect(bigResult.replayable).toBe(false);

    const fits = new CallRecord(20);
    await fits.recording(countingHost().hostCall)(request(1, 'a', '{}'));
    expect(fits.replayable).toBe(true);
    expect(fits.size).toBe(1);
  });

  it('records a host that throws as the well-formed failure the run saw', async () => {
    const record = new CallRecord(1_000);
    const seen = await record.recording(async () => {
      throw new Error('boom');
    })(request(1, 'a', '{}'));
    expect(seen).toStrictEqual({ ok: false, code: 'HOST_CALL_FAILED', message: 'boom' });
    expect(await record.replaying(countingHost().hostCall, () => undefined)(request(1, 'a', '{}'))).toStrictEqual(seen);
  });
});
