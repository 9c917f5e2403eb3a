// The part of node-postgres the store and its claims, locks and sessions use: a pool and
// the connections checked out of it (a `pg.Pool` fits; so does a pool an embedder brings).

/** The part of a `pg.Pool` the store uses, for code that brings its own pool. */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** A connection checked out of a `PostgresPool`. */
export interface PostgresPoolClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** `true` (or an error) destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
}
