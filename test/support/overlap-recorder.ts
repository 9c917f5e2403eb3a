// Shared by the scheduler and run_code tests.
/**
 * Watches tool bodies: which run at once, whether an exclusive one ever overlapped
 * another, and the most concurrency-safe bodies that ran together.
 */
export class OverlapRecorder {
  readonly running = new Map<string, boolean>();
  readonly violations: string[] = [];
  readonly events: string[] = [];
  maxParallel = 0;

  enter(id: string, parallel: boolean): void {
    if (!parallel && this.running.size > 0)
      this.violations.push(`exclusive ${id} started while ${[...this.running.keys()].join(',')} ran`);
    for (const [other, otherParallel] of this.running) {
      if (!otherParallel) this.violations.push(`${id} started while exclusive ${other} ran`);
    }
    this.running.set(id, parallel);
    this.events.push(`start:${id}`);
    this.maxParallel = Math.max(this.maxParallel, [...this.running.values()].filter(Boolean).length);
  }

  exit(id: string): void {
    this.running.delete(id);
    this.events.push(`end:${id}`);
  }
}
