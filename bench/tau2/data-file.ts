// A data file of the retail folder, plain or gzip-compressed (`<name>.gz`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export function readDataFile(dir: string, name: string): string {
  const plain = join(dir, name);
  if (existsSync(plain)) return readFileSync(plain, 'utf8');
  const packed = `${plain}.gz`;
  if (existsSync(packed)) return gunzipSync(readFileSync(packed)).toString('utf8');
  throw new Error(
    `${plain}: not found (nor ${name}.gz); --data must be the tau2 retail folder (db.json, tasks.json, policy.md)`,
  );
}
