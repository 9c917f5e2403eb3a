// TradingBot (trading_bot.json): one account, its orders, watch list and stock table.
import { filler } from '../filler.ts';
import { PyRandom } from '../py-random.ts';
import { deepCopy, PyError, pyEqual, pyRepr, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, num, req, str, truthy } from './env.ts';

const stock = (price: number, pct: number, volume: number, ma5: number, ma20: number): Dict => ({
  price,
  percent_change: pct,
  volume,
  'MA(5)': ma5,
  'MA(20)': ma20,
});

const DEFAULTS = (): Dict => ({
  orders: {
    12345: { id: 12345, order_type: 'Buy', symbol: 'AAPL', price: 210.65, amount: 10, status: 'Completed' },
    12446: { id: 12446, order_type: 'Sell', symbol: 'GOOG', price: 2840.56, amount: 5, status: 'Pending' },
  },
  account_info: { account_id: 12345, balance: 10000.0, binding_card: 1974202140965533 },
  authenticated: false,
  market_status: 'Closed',
  order_counter: 12446,
  stocks: {
    AAPL: stock(227.16, 0.17, 2.552, 227.11, 227.09),
    GOOG: stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
    TSLA: stock(667.92, -0.12, 1.654, 671.15, 668.2),
    MSFT: stock(310.23, 0.09, 3.234, 309.88, 310.11),
    NVDA: stock(220.34, 0.34, 1.234, 220.45, 220.67),
    ALPH: stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
    OMEG: stock(457.23, 0.12, 2.345, 456.78, 458.12),
    QUAS: stock(725.89, -0.03, 1.789, 726.45, 728.0),
    NEPT: stock(88.34, 0.19, 0.654, 88.21, 88.67),
    SYNX: stock(345.67, 0.11, 2.112, 345.34, 346.12),
    ZETA: stock(22.09, -0.05, 0.789, 22.12, 22.34),
  },
  watch_list: ['NVDA'],
  transaction_history: [],
  random_seed: 1053520,
});

const SYMBOLS: Readonly<Record<string, string>> = {
  Apple: 'AAPL',
  Google: 'GOOG',
  Tesla: 'TSLA',
  Microsoft: 'MSFT',
  Nvidia: 'NVDA',
  'Zeta Corp': 'ZETA',
  'Alpha Tech': 'ALPH',
  'Omega Industries': 'OMEG',
  'Quasar Ltd.': 'QUAS',
  'Neptune Systems': 'NEPT',
  'Synex Solutions': 'SYNX',
  Amazon: 'AMZN',
  Gorilla: 'GORI',
};

/** 2024-09-01 10:30:00 (wall clock; the zone cancels out upstream). */
const START_MS = Date.UTC(2024, 8, 1, 10, 30, 0);
const pad = (n: number): string => n.toString().padStart(2, '0');
const stamp = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};
const parseStamp = (s: string): number => {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2}))?$/.exec(s);
  if (m === null) throw new PyError(`time data '${s}' does not match format`);
  return Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
  );
};
/** Python's `f"{x:.2f}"` for the funds message. */
const money = (x: number): string => x.toFixed(2);

type Key = string | number;

export class TradingBot implements BfclEnv {
  orders = new Map<Key, PyValue>();
  account_info: Dict = {};
  authenticated: PyValue = false;
  market_status: PyValue = 'Closed';
  order_counter = 12446;
  stocks: Dict = {};
  watch_list: PyValue[] = [];
  transaction_history: PyValue[] = [];
  long_context = false;
  private random = new PyRandom(1053520);

  load(cfg: Dict, longContext: boolean): void {
    const c = { ...DEFAULTS(), ...deepCopy(cfg) };
    this.orders = new Map(
      Object.entries(isDict(c.orders) ? c.orders : {}).map(([k, v]) => [/^\d+$/.test(k) ? Number(k) : k, v]),
    );
    this.account_info = isDict(c.account_info) ? c.account_info : {};
    this.authenticated = c.authenticated;
    this.market_status = c.market_status;
    this.order_counter = Number(c.order_counter);
    this.stocks = isDict(c.stocks) ? c.stocks : {};
    this.watch_list = Array.isArray(c.watch_list) ? c.watch_list : [];
    this.transaction_history = Array.isArray(c.transaction_history) ? c.transaction_history : [];
    this.long_context = longContext;
    this.random = new PyRandom(Number(c.random_seed));
  }

  state(): Record<string, PyValue> {
    return {
      orders: this.orders,
      account_info: this.account_info,
      authenticated: this.authenticated,
      market_status: this.market_status,
      order_counter: this.order_counter,
      stocks: this.stocks,
      watch_list: this.watch_list,
      transaction_history: this.transaction_history,
      long_context: this.long_context,
    };
  }

  private orderKey(id: PyValue): Key | undefined {
    return [...this.orders.keys()].find((k) => pyEqual(k, id));
  }

  private timestamp(): string {
    return stamp(START_MS + this.random.randint(0, 86400) * 1000);
  }

  private balance(): number {
    return num(this.account_info.balance ?? 0);
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const auth = (): boolean => truthy(this.authenticated);
    return dispatch(
      'TradingBot',
      {
        get_current_time: () => ({ current_time: '10:30 AM' }),
        get_symbol_by_name: () => {
          const name = str(r('name'));
          return { symbol: Object.hasOwn(SYMBOLS, name) ? (SYMBOLS[name] ?? '') : 'Stock not found' };
        },
        get_stock_info: () => {
          const symbol = str(r('symbol'));
          const info = Object.hasOwn(this.stocks, symbol) ? this.stocks[symbol] : undefined;
          if (info === undefined) return { error: `Stock with symbol '${symbol}' not found.` };
          if (!this.long_context) return info;
          return { ...(info as Dict), 'MA(5)': [...filler().MA_5_EXTENSION], 'MA(20)': [...filler().MA_20_EXTENSION] };
        },
        get_order_details: () => {
          const id = r('order_id');
          const key = this.orderKey(id);
          if (key === undefined)
            return {
              error: `Order with ID ${str(id)} not found.Here is the list of orders_id: ${pyRepr([...this.orders.keys()])}`,
            };
          const order = this.orders.get(key) as Dict;
          if (!this.long_context) return order;
          const symbol = str(order.symbol);
          const metadata: Dict = {};
          for (const [k, v] of Object.entries(filler().ORDER_DETAIL_EXTENSION))
            metadata[k] = v.replaceAll('{symbol}', symbol).replaceAll('{{', '{').replaceAll('}}', '}');
          return { ...order, metadata };
        },
        cancel_order: () => {
          const id = r('order_id');
          const key = this.orderKey(id);
          if (key === undefined) return { error: `Order with ID ${str(id)} not found.` };
          const order = this.orders.get(key) as Dict;
          if (order.status === 'Completed')
            return { error: `Can't cancel order ${str(id)}. Order is already completed.` };
          order.status = 'Cancelled';
          return { order_id: id, status: 'Cancelled' };
        },
        place_order: () => {
          const type = str(r('order_type'));
          const symbol = str(r('symbol'));
          const price = num(r('price'));
          const amount = r('amount');
          if (!auth()) return { error: 'User not authenticated. Please log in to place an order.' };
          if (!Object.hasOwn(this.stocks, symbol)) return { error: `Invalid stock symbol: ${symbol}` };
          if (price <= 0 || num(amount) <= 0) return { error: 'Price and amount must be positive values.' };
          if (type.toLowerCase() === 'buy') {
            const total = price * Math.trunc(num(amount));
            if (total > this.balance())
              return {
                error: `Insufficient funds: required $${money(total)} but only $${money(this.balance())} available.`,
              };
          }
          const id = this.order_counter;
          this.orders.set(id, { id, order_type: type, symbol, price, amount, status: 'Open' });
          this.order_counter += 1;
          return { order_id: id, order_type: type, status: 'Pending', price, amount };
        },
        withdraw_funds: () => {
          const amount = num(r('amount'));
          if (!auth()) return { error: 'User not authenticated. Please log in to make a transaction.' };
          if (this.market_status !== 'Open') return { error: 'Market is closed. Transactions are not allowed.' };
          if (amount <= 0) return { error: 'Transaction amount must be positive.' };
          if (amount > num(this.account_info.balance ?? null)) return { error: 'Insufficient funds for withdrawal.' };
          this.account_info.balance = this.balance() - amount;
          this.transaction_history.push({ type: 'withdrawal', amount, timestamp: this.timestamp() });
          return { status: 'Withdrawal successful', new_balance: this.account_info.balance };
        },
        get_account_info: () =>
          auth() ? this.account_info : { error: 'User not authenticated. Please log in to view account information.' },
        trading_login: () => {
          r('username');
          r('password');
          if (auth()) return { status: 'Already logged in' };
          this.authenticated = true;
          return { status: 'Logged in successfully' };
        },
        trading_get_login_status: () => ({ status: auth() }),
        trading_logout: () => {
          if (!auth()) return { status: 'No user is currently logged in' };
          this.authenticated = false;
          return { status: 'Logged out successfully' };
        },
        fund_account: () => {
          const amount = num(r('amount'));
          if (!auth()) return { error: 'User not authenticated. Please log in to fund the account.' };
          if (amount <= 0) return { error: 'Funding amount must be positive.' };
          this.account_info.balance = this.balance() + amount;
          this.transaction_history.push({ type: 'deposit', amount, timestamp: this.timestamp() });
          return { status: 'Account funded successfully', new_balance: this.account_info.balance };
        },
        remove_stock_from_watchlist: () => {
          const symbol = r('symbol');
          if (!auth()) return { error: 'User not authenticated. Please log in to modify the watchlist.' };
          const i = this.watch_list.findIndex((s) => pyEqual(s, symbol));
          if (i < 0) return { error: `Stock ${str(symbol)} not found in watchlist.` };
          this.watch_list.splice(i, 1);
          return { status: `Stock ${str(symbol)} removed from watchlist successfully.` };
        },
        get_watchlist: () => {
          if (!auth()) return ['Error: User not authenticated. Please log in to view the watchlist.'];
          if (this.long_context) return [...this.watch_list, ...filler().WATCH_LIST_EXTENSION];
          return { watchlist: this.watch_list };
        },
        get_order_history: () => {
          if (!auth()) return [{ error: 'User not authenticated. Please log in to view order history.' }];
          return { history: [...this.orders.keys()] };
        },
        get_transaction_history: () => {
          if (!auth()) return [{ error: 'User not authenticated. Please log in to view transaction history.' }];
          const start = truthy(a.start_date ?? null) ? parseStamp(str(a.start_date ?? '')) : -Infinity;
          const end = truthy(a.end_date ?? null) ? parseStamp(str(a.end_date ?? '')) : Infinity;
          const list = this.transaction_history.filter((t) => {
            const at = parseStamp(str((t as Dict).timestamp ?? ''));
            return start <= at && at <= end;
          });
          if (this.long_context) list.push(...filler().TRANSACTION_HISTORY_EXTENSION);
          return { transaction_history: list };
        },
        get_available_stocks: () => {
          const sector = str(r('sector'));
          const map: Record<string, string[]> = {
            Technology: ['AAPL', 'GOOG', 'MSFT', 'NVDA'],
            Automobile: ['TSLA', 'F', 'GM'],
          };
          if (this.long_context) {
            map.Technology?.push(...filler().TECHNOLOGY_EXTENSION);
            map.Automobile?.push(...filler().AUTOMOBILE_EXTENSION);
          }
          return { stock_list: Object.hasOwn(map, sector) ? (map[sector] ?? []) : [] };
        },
        filter_stocks_by_price: () => {
          const list = r('stocks') as PyValue[];
          const lo = num(r('min_price'));
          const hi = num(r('max_price'));
          const price = (s: PyValue): number => {
            const info = Object.hasOwn(this.stocks, str(s)) ? this.stocks[str(s)] : undefined;
            return isDict(info) && info.price !== undefined ? num(info.price) : 0;
          };
          return { filtered_stocks: list.filter((s) => price(s) >= lo && price(s) <= hi) };
        },
        add_to_watchlist: () => {
          const s = r('stock');
          if (!this.watch_list.some((x) => pyEqual(x, s)) && Object.hasOwn(this.stocks, str(s)))
            this.watch_list.push(s);
          return { watchlist: this.watch_list };
        },
        notify_price_change: () => {
          const list = r('stocks') as PyValue[];
          const threshold = num(r('threshold'));
          const changed = list.filter((s) => {
            const info = Object.hasOwn(this.stocks, str(s)) ? this.stocks[str(s)] : undefined;
            return isDict(info) && Math.abs(num(info.percent_change ?? 0)) >= threshold;
          });
          return changed.length > 0
            ? { notification: `Stocks ${changed.map(str).join(', ')} have significant price changes.` }
            : { notification: 'No significant price changes in the selected stocks.' };
        },
      },
      method,
      a,
    );
  }
}
