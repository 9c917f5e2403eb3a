// What the pipeline needs to know about durable runs when approval is involved: whether
// a call may pause (its parent is a durable run_code run), and a decision a human made
// for it through `rt.resume`. A decision belongs to one run: it is looked up by the
// calling run's token (which only that run's nested calls carry) and the call's id within
// that run, so no other run, direct call or conversation sees it, whatever ids it uses.

/** One run's decisions for its own nested calls, by callId (a run matches them to what the approver was shown). */
export type RunDecisionLookup = (callId: string) => 'approve' | 'deny' | undefined;

export interface PauseGates {
  /** undefined when a call made by `parent` may pause; otherwise why it cannot (the end of a sentence). */
  refusal(parent: symbol | undefined): string | undefined;
  /** The decision the calling run holds for this call of its own, if any. */
  decision(parent: symbol | undefined, callId: string): 'approve' | 'deny' | undefined;
}

const NO_DECISIONS: RunDecisionLookup = () => undefined;

/** The runtime's pause gates: durable runs register themselves (and their decisions) while their program runs. */
export class RunPauseGates implements PauseGates {
  readonly #journaled: boolean;
  readonly #runs = new Map<symbol, RunDecisionLookup>();

  constructor(journaled: boolean) {
    this.#journaled = journaled;
  }

  refusal(parent: symbol | undefined): string | undefined {
    if (!this.#journaled)
      return 'a run can pause only on a runtime with a journal (createToolRuntime({ journal: path or store }))';
    if (parent === undefined || !this.#runs.has(parent))
      return "only the calls a run_code program makes can pause (not a model-direct call or a composite tool's inner call)";
    return undefined;
  }

  decision(parent: symbol | undefined, callId: string): 'approve' | 'deny' | undefined {
    // Asked on every call: a top-level call (no parent) or a call of a run without decisions costs one lookup.
    return parent === undefined ? undefined : this.#runs.get(parent)?.(callId);
  }

  /** A durable run's token while its program runs, with its decisions; the returned function removes it. */
  addRun(token: symbol, decisions: RunDecisionLookup = NO_DECISIONS): () => void {
    this.#runs.set(token, decisions);
    return () => this.#runs.delete(token);
  }
}
