// Presentations arranged as the call tree a UI shows: each nested call (run_code's,
// a composite tool's) under the call that made it. Live (from `tools/result`
// observers) and replayed (from a journal) presentations go through this same
// function, so the same commits give the same tree.
import type { ExecutionPresentation } from './present-execution.ts';

export interface PresentationNode {
  readonly presentation: ExecutionPresentation;
  /** Nested calls, in commit order. */
  readonly children: readonly PresentationNode[];
}

/**
 * Roots are calls without a parent among the given presentations (top-level calls, or
 * nested calls whose parent never committed), in commit order; children likewise.
 */
export function presentationTree(executions: readonly ExecutionPresentation[]): readonly PresentationNode[] {
  const nodes = new Map<string, { presentation: ExecutionPresentation; children: PresentationNode[] }>();
  for (const presentation of executions) nodes.set(presentation.callId, { presentation, children: [] });
  const roots: PresentationNode[] = [];
  for (const presentation of executions) {
    const node = nodes.get(presentation.callId)!;
    if (node.presentation !== presentation) continue; // a repeated callId: the last one stands
    const parent = presentation.parentCallId === undefined ? undefined : nodes.get(presentation.parentCallId);
    (parent === undefined ? roots : parent.children).push(node);
  }
  return freezeTree(roots);
}

/** Freezes every node, children first, with an explicit stack (a parent chain may be very long). */
function freezeTree(roots: PresentationNode[]): readonly PresentationNode[] {
  const order: PresentationNode[] = [];
  const stack: PresentationNode[] = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as PresentationNode;
    order.push(node);
    for (const child of node.children) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i] as PresentationNode;
    Object.freeze(node.children);
    Object.freeze(node);
  }
  return Object.freeze(roots);
}
