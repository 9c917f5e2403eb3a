// What the pipeline needs to know about durable runs when approval is involved: whether
// a call may pause (its parent is a durable run_code run), and a decision a human
// already made for it (a paused run resumed with decisions). Kept by the runtime.

export interface PauseGates {
  /** undefined when a call made by `parent` may pause; otherwise why it cannot (the end of a sentence). */
  refusal(parent: symbol | undefined): string | undefined;
  /** The decision given to `resume` for this call, if any. */
  decision(callId: string): 'approve' | 'deny' | undefined;
}

/** The runtime's pause gates: runs register themselves while they may pause; resumes register decisions. */
export class RunPauseGates implements PauseGates {
  readonly #journaled: boolean;
  readonly #runs = new Set<symbol>();
  readonly #decisions = new Map<string, 'approve' | 'deny'>();

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

  decision(callId: string): 'approve' | 'deny' | undefined {
    // Asked on every call; most runtimes never hold a decision (a lookup hashes the callId).
    return this.#decisions.size === 0 ? undefined : this.#decisions.get(callId);
  }

  /** A durable run's token while its program runs; the returned function removes it. */
  addRun(token: symbol): () => void {
    this.#runs.add(token);
    return () => this.#runs.delete(token);
  }

  /** Decisions for the calls of one resumed run, until the returned function removes them. */
  addDecisions(decisions: Readonly<Record<string, 'approve' | 'deny'>>): () => void {
    const ids = Object.keys(decisions);
    for (const id of ids) this.#decisions.set(id, decisions[id]!);
    return () => {
      for (const id of ids) if (this.#decisions.get(id) === decisions[id]) this.#decisions.delete(id);
    };
  }
}
