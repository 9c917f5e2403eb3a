/** Base of every error the runtime throws at its caller: a stable `code` plus structured `details`. */
export class ToolRuntimeError extends Error {
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  constructor(code: string, message: string, details?: Readonly<Record<string, unknown>>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}
