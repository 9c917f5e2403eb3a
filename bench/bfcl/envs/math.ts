// MathAPI (math_api.json): stateless arithmetic; every result is {result} or {error}.
import { PyError, PyOpaque, type PyValue, floatRepr } from '../py-value.ts';
import { type Args, type BfclEnv, dispatch, num, req } from './env.ts';

/** x rounded to `bits` significant bits, to nearest (ties to even). */
function roundBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const e = Math.floor(Math.log2(Math.abs(x)));
  const scale = 2 ** (bits - 1 - e);
  const scaled = x * scale;
  let r = Math.round(scaled);
  if (Math.abs(scaled % 1) === 0.5 && r % 2 !== 0) r -= 1;
  return r / scale;
}

/**
 * mpmath's `log(value) / log(base)` at `precision` decimal digits, and its repr
 * (`mpf('…')`): working precision round((dps+1)·log2 10) bits, each step rounded to it,
 * printed with round(bits/log2 10)+2 digits, trailing zeros dropped. An approximation of
 * mpmath from doubles: exact for the ground truth's calls, not in general.
 */
function mpLog(value: number, base: number, dps: number): PyOpaque {
  const bits = Math.max(1, Math.round((dps + 1) * 3.3219280948873626));
  const q = roundBits(roundBits(Math.log(value), bits) / roundBits(Math.log(base), bits), bits);
  const digits = Math.max(1, Math.round(bits / 3.3219280948873626) + 2);
  let text = q.toPrecision(Math.min(digits, 17));
  if (text.includes('e')) text = floatRepr(Number(text));
  else if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '.0');
  else text += '.0';
  return new PyOpaque(`mpf('${text}')`, q);
}

const numbersOf = (v: PyValue): number[] => {
  if (!Array.isArray(v)) throw new PyError(`'${typeof v}' object is not iterable`);
  return v.map(num);
};

/** Python's round(x, n): half to even on the decimal text of the exact value. */
function pyRound(x: number, places: number): number {
  const factor = 10 ** places;
  const scaled = x * factor;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  let r: number;
  if (diff > 0.5) r = floor + 1;
  else if (diff < 0.5) r = floor;
  else r = floor % 2 === 0 ? floor : floor + 1;
  return r / factor;
}

export class MathAPI implements BfclEnv {
  load(): void {}

  state(): Record<string, PyValue> {
    return {};
  }

  call(method: string, a: Args): PyValue {
    const n = (name: string): number => num(req(a, method, name));
    const list = (): number[] => numbersOf(req(a, method, 'numbers'));
    return dispatch(
      'MathAPI',
      {
        logarithm: () => {
          const value = n('value');
          const base = n('base');
          const precision = n('precision');
          if (value <= 0 || base <= 0 || base === 1) return { error: 'math domain error' };
          return { result: mpLog(value, base, precision) };
        },
        mean: () => {
          const xs = list();
          if (xs.length === 0) return { error: 'Cannot calculate mean of an empty list' };
          return { result: xs.reduce((s, x) => s + x, 0) / xs.length };
        },
        standard_deviation: () => {
          const xs = list();
          if (xs.length === 0) return { error: 'Cannot calculate standard deviation of an empty list' };
          const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
          return { result: Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length) };
        },
        si_unit_conversion: () => {
          const toMeters: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 };
          const value = req(a, method, 'value');
          const from = String(req(a, method, 'unit_in'));
          const to = String(req(a, method, 'unit_out'));
          if (typeof value !== 'number') return { error: 'Value must be a number' };
          const fi = toMeters[from];
          const ti = toMeters[to];
          if (!Object.hasOwn(toMeters, from) || !Object.hasOwn(toMeters, to) || fi === undefined || ti === undefined)
            return { error: `Conversion from '${from}' to '${to}' is not supported` };
          return { result: value * fi * (1 / ti) };
        },
        imperial_si_conversion: () => {
          const table: Record<string, number> = {
            cm_to_in: 0.393701,
            in_to_cm: 2.54,
            m_to_ft: 3.28084,
            ft_to_m: 0.3048,
            m_to_yd: 1.09361,
            yd_to_m: 0.9144,
            km_to_miles: 0.621371,
            miles_to_km: 1.60934,
            kg_to_lb: 2.20462,
            lb_to_kg: 0.453592,
            celsius_to_fahrenheit: 1.8,
            fahrenheit_to_celsius: 5 / 9,
          };
          const value = req(a, method, 'value');
          const from = String(req(a, method, 'unit_in'));
          const to = String(req(a, method, 'unit_out'));
          if (typeof value !== 'number') return { error: 'Value must be a number' };
          if (from === to) return { result: value };
          const key = `${from}_to_${to}`;
          const factor = Object.hasOwn(table, key) ? table[key] : undefined;
          if (factor === undefined) return { error: `Conversion from '${from}' to '${to}' is not supported` };
          if (from === 'celsius' && to === 'fahrenheit') return { result: value * factor + 32 };
          if (from === 'fahrenheit' && to === 'celsius') return { result: (value - 32) * factor };
          return { result: value * factor };
        },
        add: () => ({ result: n('a') + n('b') }),
        subtract: () => ({ result: n('a') - n('b') }),
        multiply: () => ({ result: n('a') * n('b') }),
        divide: () => {
          const x = n('a');
          const y = n('b');
          return y === 0 ? { error: 'Cannot divide by zero' } : { result: x / y };
        },
        power: () => ({ result: n('base') ** n('exponent') }),
        square_root: () => {
          const x = n('number');
          const precision = n('precision');
          if (x < 0) return { error: 'Cannot calculate square root of a negative number' };
          const root = Math.sqrt(x);
          // Decimal's sqrt at `precision` digits, from a double: right to ~15 digits.
          const text = Number.isInteger(root) ? String(root) : root.toPrecision(Math.min(Math.max(precision, 1), 17));
          return { result: new PyOpaque(`Decimal('${text}')`, root) };
        },
        absolute_value: () => ({ result: Math.abs(n('number')) }),
        round_number: () => ({ result: pyRound(n('number'), 'decimal_places' in a ? num(a.decimal_places) : 0) }),
        percentage: () => {
          const part = n('part');
          const whole = n('whole');
          return whole === 0 ? { error: 'Whole value cannot be zero' } : { result: (part / whole) * 100 };
        },
        min_value: () => {
          const xs = list();
          return xs.length === 0 ? { error: 'Cannot find minimum of an empty list' } : { result: Math.min(...xs) };
        },
        max_value: () => {
          const xs = list();
          return xs.length === 0 ? { error: 'Cannot find maximum of an empty list' } : { result: Math.max(...xs) };
        },
        sum_values: () => {
          const xs = list();
          return xs.length === 0
            ? { error: 'Cannot calculate sum of an empty list' }
            : { result: xs.reduce((s, x) => s + x, 0) };
        },
      },
      method,
      a,
    );
  }
}
