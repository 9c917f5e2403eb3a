// Entry of the guest prelude, evaluated in every guest context before the program. It
// builds the only things a program sees (`tools`, `ToolCallError`, `console`), and
// gives the host `configure(json)` and `deliver(json)` (referenced by the host, then
// deleted from the global) and the program its one-shot starter. The program's outcome
// is computed and formatted here, under try/catch, so the host never reads a guest
// object (looping getters, Proxies and non-Errors stay inside).
// Bundled to one script by sandbox/bundle-guest-prelude.ts (see guest-prelude-bundle.ts).
import './host-link.ts';
import { CONFIGURE_GLOBAL, DELIVER_GLOBAL, START_GLOBAL, WAKE_DELIVERY, type GuestConfig } from '../guest-protocol.ts';
import { post } from './host-link.ts';
import {
  apply,
  create,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  parse,
  promiseThen,
  TypeErrorCtor,
} from './intrinsics.ts';
import { describeThrown } from './format-value.ts';
import { run } from './run-state.ts';
import { isProblem, toJson } from './strict-json.ts';
import { abandonQueue, deliver, makeTool, ToolCallError } from './tool-calls.ts';
import { sandboxConsole } from './guest-console.ts';
import { installNativeWorkGuards } from './native-work-guards.ts';
import { installOffHeapGuards } from './off-heap-guards.ts';
import { installDeterministicSources, seedSources } from './deterministic-sources.ts';
import { startPerformanceClock } from './performance.ts';
import { wake } from './timers.ts';
import { onUncaught } from './uncaught.ts';
import { captureUrlBuiltins } from './url.ts';
import { installNodeLineGlobals, installWebGlobals } from './web-globals.ts';
import { captureStateBuiltins, isStateProblem, readState, writeState } from './state-codec.ts';
import './blocking-calls.ts';

const scope = globalThis as unknown as Record<string, unknown>;
installOffHeapGuards(scope);
installNativeWorkGuards(scope);
installWebGlobals(scope);
delete scope['console'];

/** Sessions: the `state` budget (-1: no session), and why the saved state could not be read. */
let stateMaxBytes = -1;
let stateLoadError: string | undefined;

/** What the program left on `state`, as the `done` message's fields. */
function savedState(): { state: string; stateBytes: number } | { stateError: string } {
  try {
    const written = writeState(getOwnPropertyDescriptor(scope, 'state')?.value, stateMaxBytes);
    return written.ok ? { state: written.text, stateBytes: written.bytes } : { stateError: written.message };
  } catch (error) {
    return { stateError: 'state could not be saved: ' + describeThrown(error).text };
  }
}

function finish(ok: boolean, value: unknown): void {
  if (run.settled) return;
  run.settled = true;
  abandonQueue();
  if (!ok) {
    const thrown = describeThrown(value);
    post({
      __proto__: null,
      t: 'done',
      ok: false,
      kind: thrown.memory ? 'memory' : 'exception',
      message: thrown.text,
      ...(thrown.stack === undefined ? {} : { stack: thrown.stack }),
    });
    return;
  }
  const saved = stateMaxBytes < 0 ? undefined : savedState();
  if (value === undefined) {
    post({ __proto__: null, t: 'done', ok: true, ...saved });
    return;
  }
  let json: string | undefined;
  try {
    json = toJson(value, run.maxResultBytes);
  } catch (error) {
    const badOutput = (kind: 'output-limit' | 'invalid-output', message: string): void => {
      post({ __proto__: null, t: 'done', ok: false, kind, message });
    };
    if (!isProblem(error)) {
      badOutput('invalid-output', 'Converting the returned value to JSON threw ' + describeThrown(error).text);
    } else if (error.tooLarge) {
      badOutput(
        'output-limit',
        'The returned value is larger than ' +
          run.maxResultBytes +
          ' bytes as JSON (the result limit). Return less data, e.g. a summary or the first items.',
      );
    } else {
      badOutput('invalid-output', 'The returned value is not JSON: ' + error.reason + ' at result' + error.path + '.');
    }
    return;
  }
  post(
    json === undefined
      ? { __proto__: null, t: 'done', ok: true, ...saved }
      : { __proto__: null, t: 'done', ok: true, result: json, ...saved },
  );
}

onUncaught((error) => finish(false, error));

function start(program: () => unknown): void {
  delete scope[START_GLOBAL];
  if (!run.configured || run.started) return;
  run.started = true;
  if (stateLoadError !== undefined) {
    finish(false, new TypeErrorCtor(stateLoadError));
    return;
  }
  try {
    const promise = program();
    apply(promiseThen, promise, [(value: unknown) => finish(true, value), (error: unknown) => finish(false, error)]);
  } catch (error) {
    finish(false, error);
  }
}

function configure(text: string): void {
  if (run.configured) return;
  run.configured = true;
  const config = parse(text) as GuestConfig;
  // Before anything of the run's is installed, as the prelude left the built-ins.
  if (config.urlBeforeProgram === true) captureUrlBuiltins();
  run.maxCalls = config.maxCalls;
  run.maxConcurrent = config.maxConcurrentCalls;
  run.maxLogBytes = config.maxLogBytes;
  run.maxLogLines = config.maxLogLines;
  run.logLineMinBytes = config.logLineMinBytes;
  run.maxResultBytes = config.maxResultBytes;
  run.maxArgsBytes = config.maxArgsBytes;
  run.offHeapLeft = config.offHeapBytes;
  run.offHeapTotal = config.offHeapBytes;
  run.nodeMajor = config.nodeMajor;
  installNodeLineGlobals(scope, config.nodeMajor);
  seedSources(String(config.seed), Number(config.clockStartMs));
  installDeterministicSources(scope);
  startPerformanceClock();
  const tools = create(null) as Record<string, unknown>;
  const names = config.tools;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    defineProperty(tools, name, { value: makeTool(name), enumerable: true });
  }
  freeze(tools);
  defineProperty(scope, 'tools', { value: tools, writable: false, enumerable: false, configurable: false });
  defineProperty(scope, 'ToolCallError', {
    value: ToolCallError,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  defineProperty(scope, 'console', { value: sandboxConsole, writable: true, enumerable: false, configurable: true });
  if (config.state !== undefined) installState(config.state.saved, config.state.maxBytes);
}

/** The session's `state` global: writable (a program may replace or clear it), never an accessor. */
function installState(saved: string, maxBytes: number): void {
  captureStateBuiltins();
  stateMaxBytes = maxBytes;
  let value: unknown = {};
  if (saved !== '') {
    try {
      value = readState(saved);
    } catch (error) {
      stateLoadError =
        "The session's saved state could not be read (" +
        (isStateProblem(error) ? error.reason : describeThrown(error).text) +
        '); start a new session (run without `session`).';
    }
  }
  defineProperty(scope, 'state', { value, writable: true, enumerable: false, configurable: false });
}

defineProperty(scope, CONFIGURE_GLOBAL, { value: configure, configurable: true });
defineProperty(scope, DELIVER_GLOBAL, {
  value: (text: string): void => (text === WAKE_DELIVERY ? wake() : deliver(text)),
  configurable: true,
});
defineProperty(scope, START_GLOBAL, { value: start, configurable: true });
